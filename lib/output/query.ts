import { StoreCtlError } from "../errors/mod.ts";

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

/** Throws a usage error, with the position, when `expression` is not valid JMESPath. */
export async function checkQuery(expression: string): Promise<void> {
  const { compile, tokenize } = await jmespath();
  try {
    compile(expression);
  } catch (error) {
    const message = (error as Error).message;
    const at = errorPosition(expression, message, tokenize);
    const pointer = at === undefined ? "" : `\n  ${expression}\n  ${" ".repeat(at)}^ position ${at}`;
    throw new StoreCtlError("usage", `Invalid query '${expression}': ${message}${pointer}`, {
      tips: ["Query syntax: https://jmespath.site"],
    });
  }
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
