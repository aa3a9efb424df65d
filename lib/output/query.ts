import { StoreCtlError } from "../errors/mod.ts";
import { closest } from "../text/edits.ts";

type JmesPath = typeof import("@jmespath-community/jmespath");
type Json = Parameters<JmesPath["search"]>[0];

/** The JMESPath library, loaded on the first query: most commands have none. */
const jmespath = (): Promise<JmesPath> => import("@jmespath-community/jmespath");

/** Starts loading the query library, for a caller that knows a query is coming. */
export function preloadQuery(): void {
  jmespath().catch(() => {}); // a failure shows when the query runs
}

/**
 * Applies a JMESPath expression (the JMESPath Community dialect). An invalid expression is a
 * usage error that points at the offending position.
 *
 * @example
 * ```ts
 * await applyQuery([{ name: "a" }, { name: "b" }], "[].name"); // ["a", "b"]
 * ```
 */
export async function applyQuery(data: unknown, expression: string): Promise<unknown> {
  await checkQuery(expression);
  try {
    return (await jmespath()).search(data as Json, expression);
  } catch (error) {
    throw new StoreCtlError("usage", `Query '${expression}' failed on this response: ${(error as Error).message}`);
  }
}

/**
 * Throws a usage error, with the position, when `expression` is not valid JMESPath or calls a
 * function the library does not have: the whole query is checked before any request, since the
 * library finds unknown functions only while it evaluates.
 */
export async function checkQuery(expression: string): Promise<void> {
  const { compile, tokenize, getRegisteredFunctions } = await jmespath();
  const invalid = (message: string, at: number | undefined) => {
    const pointer = at === undefined ? "" : `\n  ${expression}\n  ${" ".repeat(at)}^ position ${at}`;
    return new StoreCtlError("usage", `Invalid query '${expression}': ${message}${pointer}`, {
      tips: ["Query syntax and functions: https://jmespath.site"],
    });
  };
  let tree: unknown;
  try {
    tree = compile(expression);
  } catch (error) {
    const message = (error as Error).message;
    throw invalid(message, errorPosition(expression, message, tokenize));
  }
  const known = getRegisteredFunctions();
  for (const name of functionNames(tree)) {
    if (known.includes(name)) continue;
    const guess = closest(name, known);
    const at = expression.search(new RegExp(`\\b${name}\\s*\\(`));
    throw invalid(`unknown function ${name}()${guess ? `; did you mean ${guess}()?` : ""}`, at < 0 ? undefined : at);
  }
}

/** The names of the functions a compiled expression calls. */
function functionNames(node: unknown, names: string[] = []): string[] {
  if (Array.isArray(node)) { for (const child of node) functionNames(child, names); }
  else if (node !== null && typeof node === "object") {
    const record = node as Record<string, unknown>;
    if (record.type === "Function" && typeof record.name === "string") names.push(record.name);
    for (const value of Object.values(record)) functionNames(value, names);
  }
  return names;
}

/** Where the token that made the parser fail starts, worked out from the parser's message. */
function errorPosition(expression: string, message: string, tokenize: JmesPath["tokenize"]): number | undefined {
  const unknown = /unknown character: (.)/.exec(message);
  if (unknown) return expression.indexOf(unknown[1]);
  let tokens: { type: string; value: unknown; start: number }[];
  try {
    tokens = tokenize(expression) as typeof tokens;
  } catch {
    return undefined;
  }
  const named = /token type: (\w+)/.exec(message) ?? /\((\w+)\)/.exec(message) ?? /got: (\w+)/.exec(message);
  if (!named || named[1] === "EOF") return expression.length;
  return tokens.find((t) => t.type === named[1])?.start;
}
