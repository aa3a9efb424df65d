/**
 * `ctl`'s commands as MCP tools, made from the command tree itself: a tool per command of the
 * management APIs (`cloud_database_list`), its input schema from the command's arguments and
 * flags, its description from the help, and a tool per API for the raw layer (`api_cloud`).
 * A call becomes the command line `ctl` would run ({@link argvOf}).
 *
 * @module
 */
import { StoreCtlError } from "../../lib/errors/mod.ts";
import type { Arg, Flag } from "../framework/params.ts";
import type { CommandSpec, GroupSpec } from "../framework/spec.ts";
import { loadAll } from "../framework/tree.ts";

/** What a tool may do: read only, change something, or delete something (needs `confirm: true`). */
export type Access = "read" | "write" | "destructive";

/** A JSON Schema object, as MCP's `inputSchema` takes it. */
export type JsonSchema = Record<string, unknown>;

/** One tool: its MCP face and the command line it runs. */
export interface CommandTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly access: Access;
  /** It waits for a remote operation (`--wait`, or a `wait` command): it may run as an MCP task. */
  readonly waits: boolean;
  /** The command's words (`["cloud", "database", "list"]`). */
  readonly path: readonly string[];
  readonly spec: CommandSpec;
}

/** The nouns whose commands become tools: the management APIs, not ctl's own settings. */
const TOOL_ROOTS = ["cloud", "enterprise"];
/** Verbs that only read. Every other verb changes something. */
const READ_VERBS = new Set(["list", "get", "stats", "status", "certificates", "alerts", "wait", "watch", "show"]);
/** Verbs that remove what was there. */
const DESTRUCTIVE_VERBS = new Set(["delete", "remove"]);
/** Flags a tool does not offer: confirmation is the `confirm` argument; JSON is the only output. */
const HIDDEN_FLAGS = new Set(["yes"]);

/** Every tool of `root`'s tree, in the order help lists the commands. */
export async function commandTools(root: GroupSpec): Promise<CommandTool[]> {
  const tools: CommandTool[] = [];
  const walk = (group: GroupSpec, path: string[]) => {
    for (const [name, entry] of Object.entries(group.commands)) {
      if (entry.kind === "group") walk(entry, [...path, name]);
      else if (entry.kind === "command" && !entry.hidden) tools.push(toolOf([...path, name], entry));
    }
  };
  const tree = await loadAll(root);
  for (const name of TOOL_ROOTS) {
    const entry = tree.commands[name];
    if (entry?.kind === "group") walk(entry, [name]);
  }
  const api = tree.commands.api;
  if (api?.kind === "command") tools.push(rawTool("cloud", api), rawTool("enterprise", api));
  return tools;
}

function toolOf(path: string[], spec: CommandSpec): CommandTool {
  const verb = path.at(-1)!;
  const access: Access = DESTRUCTIVE_VERBS.has(verb) || spec.confirm
    ? "destructive"
    : READ_VERBS.has(verb)
    ? "read"
    : "write";
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const arg of (spec.args ?? []) as readonly Arg<unknown>[]) {
    const name = snake(arg.name);
    properties[name] = { type: "string", description: arg.brief, ...(arg.values && { enum: [...arg.values] }) };
    if (!arg.optional) required.push(name);
  }
  for (const [key, flag] of Object.entries((spec.flags ?? {}) as Record<string, Flag<unknown>>)) {
    if (flag.hidden || HIDDEN_FLAGS.has(key)) continue;
    properties[snake(key)] = flagSchema(flag);
    if (flag.required) required.push(snake(key));
  }
  if (access === "destructive") {
    properties.confirm = { type: "boolean", description: "must be true: this deletes or removes something" };
    required.push("confirm");
  }
  properties.query = { type: "string", description: "a JMESPath expression applied to the JSON result" };
  return {
    name: path.join("_").replaceAll("-", "_"),
    title: `ctl ${path.join(" ")}`,
    description: [spec.summary, spec.description].filter(Boolean).join("\n\n"),
    inputSchema: { type: "object", properties, ...(required.length > 0 && { required }), additionalProperties: false },
    access,
    waits: verb === "wait" || verb === "watch" || "wait" in (spec.flags ?? {}),
    path,
    spec,
  };
}

/** `ctl api <deployment> <method> <path>` as one tool; only GET reads. */
function rawTool(deployment: "cloud" | "enterprise", spec: CommandSpec): CommandTool {
  const paths = deployment === "cloud" ? "relative to the cloud API's /v1, e.g. /subscriptions" : "e.g. /v1/bdbs";
  return {
    name: `api_${deployment}`,
    title: `ctl api ${deployment}`,
    description:
      `Send a raw request to the ${deployment} API with the profile's credentials (ctl api ${deployment}). ` +
      "Only GET is allowed unless the policy names the other methods.",
    inputSchema: {
      type: "object",
      properties: {
        method: { type: "string", enum: ["get", "post", "put", "patch", "delete"] },
        path: { type: "string", description: `the endpoint's path, ${paths}` },
        body: { type: "object", description: "the JSON body of a POST, PUT or PATCH" },
        query_params: { type: "string", description: "URL query parameters, e.g. 'limit=10&offset=20'" },
        query: { type: "string", description: "a JMESPath expression applied to the JSON result" },
      },
      required: ["method", "path"],
      additionalProperties: false,
    },
    access: "read", // the method decides: see rawMethod()
    waits: false,
    path: ["api", deployment],
    spec,
  };
}

/** The HTTP method of a raw tool's call, upper case; undefined for a command tool. */
export function rawMethod(tool: CommandTool, args: Record<string, unknown>): string | undefined {
  return tool.path[0] === "api" ? String(args.method ?? "").toUpperCase() : undefined;
}

/**
 * The command line of a call (after `ctl`): the tool's words, its arguments in order, then its
 * flags; a wrong argument is a `usage` error naming it and what the tool takes.
 */
export function argvOf(tool: CommandTool, args: Record<string, unknown>): string[] {
  const unknown = Object.keys(args).filter((key) => !(key in (tool.inputSchema.properties as object)));
  if (unknown.length > 0) {
    const known = Object.keys(tool.inputSchema.properties as object).join(", ");
    throw new StoreCtlError("usage", `${tool.name} has no argument ${unknown.join(", ")}; it takes ${known}`);
  }
  if (tool.path[0] === "api") {
    const words = [...tool.path, String(args.method ?? ""), String(args.path ?? "")];
    if (args.body !== undefined) words.push("--data", JSON.stringify(args.body));
    if (args.query_params !== undefined) words.push("--query-params", String(args.query_params));
    return withQuery(words, args);
  }
  const words = [...tool.path];
  for (const arg of (tool.spec.args ?? []) as readonly Arg<unknown>[]) {
    const value = args[snake(arg.name)];
    if (value !== undefined) words.push(String(value));
  }
  for (const [key, flag] of Object.entries((tool.spec.flags ?? {}) as Record<string, Flag<unknown>>)) {
    const value = args[snake(key)];
    if (value === undefined || value === null) continue;
    const spelled = `--${kebab(key)}`;
    if (flag.kind === "boolean") {
      if (value === true) words.push(spelled);
    } else if (Array.isArray(value)) { for (const item of value) words.push(spelled, String(item)); }
    else words.push(`${spelled}=${value}`);
  }
  if (tool.spec.confirm) words.push("--yes");
  return withQuery(words, args);
}

const withQuery = (words: string[], args: Record<string, unknown>) =>
  args.query === undefined ? words : [...words, "--query", String(args.query)];

function flagSchema(flag: Flag<unknown>): JsonSchema {
  const description = flag.default === undefined ? flag.brief : `${flag.brief} (default ${flag.default})`;
  if (flag.kind === "boolean") return { type: "boolean", description };
  if (flag.kind === "counter") return { type: "integer", minimum: 0, description };
  const one: JsonSchema = flag.values
    ? { type: "string", enum: [...flag.values] }
    : flag.parse === String
    ? { type: "string" }
    : { type: ["string", "number"] };
  return flag.variadic ? { type: "array", items: one, description } : { ...one, description };
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replaceAll("-", "_");
const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
