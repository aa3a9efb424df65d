import type { CloudClient, ListOptions, TaskReference } from "../../../lib/cloud/mod.ts";
import { StoreCtlError } from "../../../lib/errors/mod.ts";
import type { Factory } from "../../factory.ts";
import { readJsonBody } from "../../json_input.ts";
import { type Arg, type Flag, flag } from "../../framework/params.ts";
import { type Column, command, type CommandSpec } from "../../framework/spec.ts";

const usage = (message: string, tips: string[] = []) => new StoreCtlError("usage", message, { tips });

/** Parses a numeric cloud id before any request: the API's ids are positive whole numbers. */
export const parseId = (what: string) => (input: string): number => {
  if (!/^\d{1,15}$/.test(input) || Number(input) === 0) {
    throw usage(`must be a ${what} id (a positive whole number); got '${input}'`);
  }
  return Number(input);
};

/** `--subscription <id>`. */
export const SUBSCRIPTION_FLAG: Flag<number | undefined> = {
  kind: "parsed",
  brief: "the subscription's id (ctl cloud subscription list shows them)",
  parse: parseId("subscription"),
  placeholder: "id",
  required: true,
};

/** `--database-id <id>`. */
export const DATABASE_FLAG: Flag<number | undefined> = {
  kind: "parsed",
  brief: "the database's id (ctl cloud database list --subscription <id> shows them)",
  parse: parseId("database"),
  placeholder: "id",
  required: true,
};

/** A subscription id as the positional argument `<id>`. */
export const SUBSCRIPTION_ARG: Arg<number> = {
  name: "id",
  brief: "the subscription's id (ctl cloud subscription list shows them)",
  parse: parseId("subscription"),
};

/** `--limit <n>`: how many items a list returns at most. */
export const LIMIT_FLAG: Flag<number | undefined> = {
  kind: "parsed",
  brief: "return at most this many items (default: all, read page by page)",
  parse: (input) => {
    if (!/^\d{1,9}$/.test(input) || Number(input) === 0) {
      throw usage(`must be a whole number greater than 0; got '${input}'`);
    }
    return Number(input);
  },
  placeholder: "n",
};

/** `-d`: a full request body that flags amend. */
export const DATA_FLAG = flag.string(
  "request body: inline JSON, @file, or @- for standard input; flags override its fields",
  {
    alias: "d",
    placeholder: "json",
  },
);

/** The value of a flag the command needs, or a usage error naming it and where to find a value. */
export function required<T>(value: T | undefined, name: string, tip: string): T {
  if (value === undefined) throw usage(`${name} is required`, [tip]);
  return value;
}

/** The `-d` body as an object (empty without `-d`), checked before anything is sent. */
export async function readBody(f: Factory, data: string | undefined): Promise<Record<string, unknown>> {
  if (data === undefined) return {};
  const text = await readJsonBody(data, {
    file: (path) => f.ctx.fs.readFile(f.resolvePath(path)),
    stdin: () => f.ctx.stdin.readAll(),
  });
  const body = JSON.parse(text);
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw usage(`-d must be a JSON object; got ${Array.isArray(body) ? "an array" : JSON.stringify(body)}`, [
      "Nothing was sent",
    ]);
  }
  return body;
}

/** Drops the entries whose value is undefined (flags not given). */
export function given(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

/** The task reference a create, update or delete answers, for `--wait` to follow. */
export type Started = Promise<TaskReference>;

/** A list command: `--limit`, and the subscription flag when the list is per subscription. */
export function listCommand(spec: {
  summary: string;
  columns: readonly Column[];
  empty: string;
  examples: readonly string[];
  list: (client: CloudClient, options: ListOptions) => Promise<unknown>;
}): CommandSpec {
  return command({
    summary: spec.summary,
    flags: { limit: LIMIT_FLAG },
    output: { columns: spec.columns, empty: spec.empty },
    examples: spec.examples,
    async run({ flags }, f) {
      return await spec.list(await f.cloud(), { limit: flags.limit });
    },
  });
}

/** A list of one subscription's records: `--subscription` (required) and `--limit`. */
export function subscriptionListCommand(spec: {
  summary: string;
  columns: readonly Column[];
  empty: string;
  examples: readonly string[];
  list: (client: CloudClient, subscription: number, options: ListOptions) => Promise<unknown>;
}): CommandSpec {
  return command({
    summary: spec.summary,
    flags: { subscription: SUBSCRIPTION_FLAG, limit: LIMIT_FLAG },
    output: { columns: spec.columns, empty: spec.empty },
    examples: spec.examples,
    async run({ flags }, f) {
      const subscription = required(flags.subscription, "--subscription", SUBSCRIPTION_TIP);
      return await spec.list(await f.cloud(), subscription, { limit: flags.limit });
    },
  });
}

/** Where a subscription id comes from. */
export const SUBSCRIPTION_TIP = "Give --subscription <id>; ctl cloud subscription list shows the ids";
