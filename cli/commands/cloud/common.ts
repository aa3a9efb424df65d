import type { CloudClient, ListOptions } from "../../../lib/cloud/mod.ts";
import { StoreCtlError } from "../../../lib/errors/mod.ts";
import type { Arg, Flag } from "../../framework/params.ts";
import { type Column, command, type CommandSpec } from "../../framework/spec.ts";
import { parseId } from "../input.ts";

const usage = (message: string, tips: string[] = []) => new StoreCtlError("usage", message, { tips });

/** `--subscription <id>`. */
export const SUBSCRIPTION_FLAG: Flag<number> = {
  kind: "parsed",
  brief: "the subscription's id (ctl cloud subscription list shows them)",
  parse: parseId("subscription"),
  placeholder: "id",
  required: true,
};

/** `--database-id <id>`. */
export const DATABASE_FLAG: Flag<number> = {
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
  brief: "return at most this many items (default: all)",
  parse: (input) => {
    if (!/^\d{1,9}$/.test(input) || Number(input) === 0) {
      throw usage(`must be a whole number greater than 0; got '${input}'`);
    }
    return Number(input);
  },
  placeholder: "n",
};

/** The value of a flag the command needs, or a usage error naming it and where to find a value. */
export function required<T>(value: T | undefined, name: string, tip: string): T {
  if (value === undefined) throw usage(`${name} is required`, [tip]);
  return value;
}

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
