import type { EnterpriseClient } from "./client.ts";
import type { Stats } from "./cluster.ts";
import type { AlertMap } from "./health.ts";
import { lastStats } from "./stats.ts";

/** Where clients connect to a database: a DNS name, addresses and the port. */
export interface BdbEndpoint {
  readonly dns_name?: string;
  readonly addr?: readonly string[];
  readonly port?: number;
  readonly [field: string]: unknown;
}

/**
 * An enterprise database (bdb); `memory_size` is in bytes. A real cluster shows `port: 0` at
 * the top level; the port clients use is in `endpoints[]`. Fields beyond these pass through.
 */
export interface Bdb {
  readonly uid: number;
  readonly name: string;
  readonly memory_size: number;
  readonly status?: string;
  readonly port?: number;
  readonly endpoints?: readonly BdbEndpoint[];
  readonly [field: string]: unknown;
}

/**
 * The port(s) clients connect to: the endpoints' ports (distinct, comma-separated), or the
 * top-level `port` when there is no endpoint and it is not 0.
 *
 * @example
 * ```ts
 * import { bdbPorts } from "./bdbs.ts";
 * bdbPorts({ uid: 1, name: "a", memory_size: 1, port: 0, endpoints: [{ port: 12001 }] }); // "12001"
 * ```
 */
export function bdbPorts(bdb: Partial<Bdb>): string | undefined {
  const ports = [...new Set((bdb.endpoints ?? []).map((e) => e?.port).filter((p) => typeof p === "number" && p > 0))];
  if (ports.length > 0) return ports.join(", ");
  return typeof bdb.port === "number" && bdb.port > 0 ? String(bdb.port) : undefined;
}

/** The address of a database's first endpoint: its DNS name, else its first IP address. */
export function bdbAddress(bdb: Partial<Bdb>): string | undefined {
  const endpoint = bdb.endpoints?.[0];
  return endpoint?.dns_name || endpoint?.addr?.[0] || undefined;
}

/** Every database of the cluster. */
export function listBdbs(client: EnterpriseClient): Promise<Bdb[]> {
  return client.get<Bdb[]>("/v1/bdbs");
}

/** One database. */
export function getBdb(client: EnterpriseClient, uid: number): Promise<Bdb> {
  return client.get<Bdb>(`/v1/bdbs/${uid}`);
}

/** Creates a database; `name` and `memory_size` (bytes) are required by the API. */
export function createBdb(
  client: EnterpriseClient,
  body: { name: string; memory_size: number; readonly [field: string]: unknown },
): Promise<Bdb> {
  return client.send<Bdb>("POST", "/v1/bdbs", body);
}

/** Changes a database. */
export function updateBdb(
  client: EnterpriseClient,
  uid: number,
  changes: Readonly<Record<string, unknown>>,
): Promise<Bdb> {
  return client.send<Bdb>("PUT", `/v1/bdbs/${uid}`, changes);
}

/** Deletes a database. */
export async function deleteBdb(client: EnterpriseClient, uid: number): Promise<void> {
  await client.send<unknown>("DELETE", `/v1/bdbs/${uid}`);
}

/** A database's statistics of the last interval (`/v1/bdbs/stats/last/{uid}`, unwrapped from its uid key). */
export function bdbStats(client: EnterpriseClient, uid: number): Promise<Stats> {
  return lastStats(client, "bdbs", uid);
}

/** Every database's alerts, by database uid. */
export function bdbsAlerts(client: EnterpriseClient): Promise<Readonly<Record<string, AlertMap>>> {
  return client.get<Record<string, AlertMap>>("/v1/bdbs/alerts");
}
