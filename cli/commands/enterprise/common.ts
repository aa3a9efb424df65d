import {
  bdbsAlerts,
  type Cluster,
  clusterAlerts,
  type EnterpriseClient,
  type Health,
  listBdbs,
  listNodes,
  nodesAlerts,
  summarizeHealth,
} from "../../../lib/enterprise/mod.ts";
import { StoreCtlError } from "../../../lib/errors/mod.ts";
import { formatSize, parseSize } from "../../../lib/output/mod.ts";
import type { Factory } from "../../factory.ts";
import type { Arg, Flag } from "../../framework/params.ts";
import type { Column, OutputTarget } from "../../framework/spec.ts";
import { given, parseId, readBody } from "../input.ts";

function usage(message: string, tips: string[] = []): StoreCtlError {
  return new StoreCtlError("usage", message, { tips });
}

/** The `<uid>` argument of a `what` (database, node…), checked before any request; `list` shows the ids. */
export function uidArg(what: string, brief: string, list: string): Arg<number> {
  return { name: "uid", brief, parse: parseId(what, [`See the ids with: ${list}`]) };
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

/**
 * The request body: the `-d` object, if given, with every defined flag value written over it.
 * Checked before any request.
 */
export async function requestBody(
  f: Factory,
  data: string | undefined,
  fields: Readonly<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  return { ...await readBody(f, data), ...given(fields) };
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

/** A fraction (0.25), or the sum of several, as a percentage (`25%`). */
function percent(header: string, ...keys: string[]): Column {
  return {
    header,
    value: (row) => {
      const values = keys.map((key) => row[key]);
      return values.every((v) => typeof v === "number")
        ? `${Math.round((values as number[]).reduce((a, b) => a + b, 0) * 100)}%`
        : values.find((v) => v !== undefined);
    },
  };
}

/**
 * The columns of a cluster's or a node's stats interval: the host's metrics as a real cluster
 * names them (`cpu_user`, `free_memory`, `available_memory`, `conns`, `total_req`).
 */
export const HOST_STATS_COLUMNS: readonly Column[] = [
  { header: "INTERVAL END", value: "etime" },
  percent("CPU USER", "cpu_user"),
  percent("CPU SYSTEM", "cpu_system"),
  sizeColumn("FREE MEMORY", "free_memory"),
  sizeColumn("AVAILABLE MEMORY", "available_memory"),
  { header: "CONNECTIONS", value: "conns" },
  { header: "REQUESTS", value: "total_req" },
];

/**
 * The columns of a database's stats interval, as a real cluster names them, the load first:
 * `instantaneous_ops_per_sec`, `used_memory`, `no_of_keys`, `conns`, then CPU of the main thread
 * (`main_thread_cpu_*`, user and system added up) and per shard (`shard_cpu_*`).
 */
export const BDB_STATS_COLUMNS: readonly Column[] = [
  { header: "INTERVAL END", value: "etime" },
  { header: "OPS/SEC", value: "instantaneous_ops_per_sec" },
  sizeColumn("USED MEMORY", "used_memory"),
  { header: "KEYS", value: "no_of_keys" },
  { header: "CONNECTIONS", value: "conns" },
  percent("MAIN THREAD CPU", "main_thread_cpu_user", "main_thread_cpu_system"),
  percent("SHARD CPU USER", "shard_cpu_user"),
  percent("SHARD CPU SYSTEM", "shard_cpu_system"),
];

/**
 * Whether the result will be shown as a table (`-o table`, or `auto` on a terminal, without
 * `-q` or `--raw`): a command reads what only its table shows (e.g. the cluster's health) only
 * then, so that scripts make one request.
 */
export function showsTable(output: OutputTarget, f: Factory): boolean {
  if (output.file || f.globals.query || f.globals.raw) return false;
  return output.format === "table" || (output.format === "auto" && f.ctx.stdout.isTTY);
}

/**
 * The cluster's health (see `summarizeHealth`), read in parallel from its nodes, databases and
 * the alerts of the cluster, nodes and databases. A part that cannot be read is left unknown
 * with a warning, so that a viewer role or a passing failure does not hide the rest.
 */
export async function readHealth(f: Factory, client: EnterpriseClient, cluster?: Cluster): Promise<Health> {
  const read = async <T>(what: string, path: string, request: Promise<T>): Promise<T | undefined> => {
    try {
      return await request;
    } catch (error) {
      if (!(error instanceof StoreCtlError)) throw error;
      f.warn(`could not read ${what} (GET ${path}): ${error.message}`);
      return undefined;
    }
  };
  const [nodes, bdbs, clusterAlertMap, nodeAlerts, bdbAlerts] = await Promise.all([
    read("the nodes", "/v1/nodes", listNodes(client)),
    read("the databases", "/v1/bdbs", listBdbs(client)),
    read("the cluster's alerts", "/v1/cluster/alerts", clusterAlerts(client)),
    read("the nodes' alerts", "/v1/nodes/alerts", nodesAlerts(client)),
    read("the databases' alerts", "/v1/bdbs/alerts", bdbsAlerts(client)),
  ]);
  return summarizeHealth({ cluster, nodes, bdbs, clusterAlerts: clusterAlertMap, nodeAlerts, bdbAlerts });
}

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
