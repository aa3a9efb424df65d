import { StoreCtlError } from "../errors/mod.ts";
import type { EnterpriseClient } from "./client.ts";
import type { Stats } from "./cluster.ts";

/** Statistics keyed by uid (`{"1": {...}}`) as the object for `uid`; other shapes pass through. */
export function unwrapStats(body: Readonly<Record<string, unknown>>, uid: number): Stats {
  const inner = body?.[String(uid)];
  return inner !== null && typeof inner === "object" ? inner as Stats : body;
}

const isNotFound = (error: unknown): error is StoreCtlError =>
  error instanceof StoreCtlError && error.code === "not_found";

/**
 * The last interval of a node's or a database's statistics, from the documented route
 * (`/v1/nodes/stats/last/{uid}`, `/v1/bdbs/stats/last/{uid}`); on a 404 the specification's spelling
 * (`/v1/{kind}/{uid}/stats/last`) is tried once, and when both are 404 the error carries both
 * answers.
 *
 * @example
 * ```ts ignore
 * const stats = await lastStats(client, "bdbs", 1); // { shard_cpu_user: 0.002, used_memory: 1434144, … }
 * ```
 */
export async function lastStats(client: EnterpriseClient, kind: "nodes" | "bdbs", uid: number): Promise<Stats> {
  try {
    return unwrapStats(await client.get<Record<string, Stats>>(`/v1/${kind}/stats/last/${uid}`), uid);
  } catch (first) {
    if (!isNotFound(first)) throw first;
    try {
      return unwrapStats(await client.get<Record<string, Stats>>(`/v1/${kind}/${uid}/stats/last`), uid);
    } catch (second) {
      if (!isNotFound(second)) throw second;
      throw new StoreCtlError("not_found", `${first.message} (and ${second.message})`, {
        status: 404,
        tips: first.tips,
        cause: first,
      });
    }
  }
}
