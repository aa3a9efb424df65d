import type { EnterpriseClient } from "./client.ts";
import type { Stats } from "./cluster.ts";
import { unwrapStats } from "./nodes.ts";

/** An enterprise database (bdb); `memory_size` is in bytes. Fields beyond these pass through. */
export interface Bdb {
  readonly uid: number;
  readonly name: string;
  readonly memory_size: number;
  readonly status?: string;
  readonly [field: string]: unknown;
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

/** A database's statistics of the last interval (the API keys them by uid; this unwraps them). */
export async function bdbStats(client: EnterpriseClient, uid: number): Promise<Stats> {
  return unwrapStats(await client.get<Record<string, Stats>>(`/v1/bdbs/${uid}/stats/last`), uid);
}
