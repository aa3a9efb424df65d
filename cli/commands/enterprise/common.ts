import { StoreCtlError } from "../../../lib/errors/mod.ts";
import { formatSize, parseSize } from "../../../lib/output/mod.ts";
import type { Factory } from "../../factory.ts";
import { readJsonBody } from "../../json_input.ts";
import { type Arg, type Flag, flag } from "../../framework/params.ts";
import type { Column } from "../../framework/spec.ts";

function usage(message: string, tips: string[] = []): StoreCtlError {
  return new StoreCtlError("usage", message, { tips });
}

/** A numeric id argument, checked before any request; `list` names the command that shows them. */
export function uidArg(name: string, brief: string, list: string): Arg<number> {
  return {
    name,
    brief,
    parse: (input) => {
      if (!/^\d{1,15}$/.test(input) || Number(input) === 0) {
        throw usage(`must be a numeric id (a whole number from 1); got '${input}'`, [`See the ids with: ${list}`]);
      }
      return Number(input);
    },
  };
}

/**
 * Runs a request on one resource; a 404 gets a tip naming the command that lists the ids. The
 * client never retries a 404: an unknown id fails at once (exit 5).
 */
export async function one<T>(request: Promise<T>, list: string): Promise<T> {
  try {
    return await request;
  } catch (error) {
    if (!(error instanceof StoreCtlError) || error.code !== "not_found") throw error;
    throw new StoreCtlError("not_found", error.message, {
      status: error.status,
      cause: error,
      tips: [...error.tips, `See the ids with: ${list}`],
    });
  }
}

/** A size in bytes, written `512MB`, `1GiB`, `1.5GB` or as bytes. */
export function sizeFlag(brief: string): Flag<number | undefined> {
  return {
    kind: "parsed",
    brief: `${brief}: 512MB, 1GiB, 1.5GB or bytes (MB, GB: powers of 1000; MiB, GiB: of 1024)`,
    placeholder: "size",
    parse: (input) => {
      try {
        return parseSize(input);
      } catch (error) {
        throw usage((error as Error).message);
      }
    },
  };
}

/** `-d/--data`: the request body's fields, which the other flags override. */
export const DATA_FLAG = flag.string("body fields: inline JSON, @file or @- for standard input; flags override them", {
  alias: "d",
  placeholder: "json",
});

/**
 * The request body: the `-d` object, if given, with every defined flag value written over it.
 * Checked before any request.
 */
export async function requestBody(
  f: Factory,
  data: string | undefined,
  fields: Readonly<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  const base = data === undefined ? {} : JSON.parse(
    await readJsonBody(data, {
      file: (path) => f.ctx.fs.readFile(f.resolvePath(path)),
      stdin: () => f.ctx.stdin.readAll(),
    }),
  );
  if (base === null || typeof base !== "object" || Array.isArray(base)) {
    throw usage(`--data must be a JSON object; got ${Array.isArray(base) ? "an array" : JSON.stringify(base)}`);
  }
  const set = Object.entries(fields).filter(([, value]) => value !== undefined);
  return { ...base, ...Object.fromEntries(set) };
}

/** Fails before any request when `body` lacks a field: `what` says which flag gives it. */
export function requireFields(body: Readonly<Record<string, unknown>>, needed: Record<string, string>): void {
  const missing = Object.entries(needed).filter(([field]) => body[field] === undefined);
  if (missing.length > 0) {
    throw usage(
      `Missing ${missing.map(([field, flag]) => `${flag} (or "${field}" in --data)`).join(" and ")}`,
      ["Run with --help to see the usage"],
    );
  }
}

/** Fails before any request when there is nothing to change. */
export function requireChanges(body: Readonly<Record<string, unknown>>, flags: string): void {
  if (Object.keys(body).length === 0) throw usage(`Nothing to change: give ${flags} or -d with the fields to change`);
}

/** A column showing a byte count as people read it (`1 GiB`); JSON keeps the bytes. */
export function sizeColumn(header: string, path: string): Column {
  return {
    header,
    value: (row) => {
      const bytes = path.split(".").reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], row);
      return typeof bytes === "number" ? formatSize(bytes) : bytes;
    },
  };
}

/** A fraction (0.25) as a percentage (`25%`). */
function percent(header: string, key: string): Column {
  return { header, value: (row) => (typeof row[key] === "number" ? `${Math.round(row[key] * 100)}%` : row[key]) };
}

/** The columns of a stats interval (cluster, node or database). */
export const STATS_COLUMNS: readonly Column[] = [
  { header: "INTERVAL END", value: "etime" },
  percent("CPU USER", "cpu_user"),
  percent("CPU SYSTEM", "cpu_system"),
  sizeColumn("FREE MEMORY", "free_memory"),
  { header: "CONNECTIONS", value: "conns" },
  { header: "REQUESTS", value: "total_req" },
];

/** An object keyed by name (`{"node_memory": {...}}`) as rows with that name in `key`. */
export function keyedRows(key: string): (data: unknown) => unknown {
  return (data) =>
    data !== null && typeof data === "object" && !Array.isArray(data)
      ? Object.entries(data).map(([name, value]) => ({
        [key]: name,
        ...(value !== null && typeof value === "object" ? value : { value }),
      }))
      : data;
}
