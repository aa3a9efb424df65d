/**
 * What the commands of both APIs read from the command line the same way: numeric ids, and a
 * `-d` request body whose fields the other flags override. Both are checked before any request.
 *
 * @module
 */
import { StoreCtlError } from "../../lib/errors/mod.ts";
import type { Factory } from "../factory.ts";
import { flag } from "../framework/params.ts";
import { readJsonBody } from "../json_input.ts";

/**
 * Parses a numeric id (both APIs' ids are whole numbers from 1); a mistake is a usage error
 * naming what the id is of, with `tips` (where to find the ids).
 *
 * @example
 * ```ts
 * import { parseId } from "./input.ts";
 * parseId("database")("12"); // 12
 * ```
 */
export const parseId = (what: string, tips: readonly string[] = []) => (input: string): number => {
  if (!/^\d{1,15}$/.test(input) || Number(input) === 0) {
    throw new StoreCtlError("usage", `must be a ${what} id (a positive whole number); got '${input}'`, { tips });
  }
  return Number(input);
};

/** `-d/--data`: a request body that flags amend. */
export const DATA_FLAG = flag.string(
  "request body: inline JSON, @file, or @- for standard input; flags override its fields",
  { alias: "d", placeholder: "json" },
);

/** The `-d` body as an object (empty without `-d`): anything else is a usage error, and nothing is sent. */
export async function readBody(f: Factory, data: string | undefined): Promise<Record<string, unknown>> {
  if (data === undefined) return {};
  const body = JSON.parse(
    await readJsonBody(data, {
      file: (path) => f.ctx.fs.readFile(f.resolvePath(path)),
      stdin: () => f.ctx.stdin.readAll(),
    }),
  );
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new StoreCtlError(
      "usage",
      `-d must be a JSON object; got ${Array.isArray(body) ? "an array" : JSON.stringify(body)}`,
      { tips: ["Nothing was sent"] },
    );
  }
  return body;
}

/** The fields whose value is given (flags left out are undefined), to write over a `-d` body. */
export function given(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}
