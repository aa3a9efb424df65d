import type { EnterpriseClient } from "./client.ts";

/** An active-active database, addressed by its `guid`. Fields beyond these pass through. */
export interface Crdb {
  readonly guid: string;
  readonly name: string;
  readonly [field: string]: unknown;
}

/** An active-active task: creating or changing a crdb runs as one. */
export interface CrdbTask {
  readonly id: string;
  readonly status: string;
  readonly crdb_guid?: string;
  readonly [field: string]: unknown;
}

/**
 * Every active-active database this cluster takes part in. The reference documents an array;
 * a captured real answer was `{"crdbs": [...]}`: both are read.
 */
export async function listCrdbs(client: EnterpriseClient): Promise<Crdb[]> {
  const body = await client.get<Crdb[] | { crdbs?: Crdb[] }>("/v1/crdbs");
  return Array.isArray(body) ? body : body?.crdbs ?? [];
}

/** One active-active database. */
export function getCrdb(client: EnterpriseClient, guid: string): Promise<Crdb> {
  return client.get<Crdb>(`/v1/crdbs/${encodeURIComponent(guid)}`);
}

/** Starts creating an active-active database; the answer is its task. */
export function createCrdb(
  client: EnterpriseClient,
  body: { name: string; readonly [field: string]: unknown },
): Promise<CrdbTask> {
  return client.send<CrdbTask>("POST", "/v1/crdbs", body);
}

/** Every active-active task. */
export function listCrdbTasks(client: EnterpriseClient): Promise<CrdbTask[]> {
  return client.get<CrdbTask[]>("/v1/crdb_tasks");
}
