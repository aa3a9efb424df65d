import type { EnterpriseClient } from "./client.ts";

/** A cluster event: its `time` (ISO 8601), `type` and `severity`. Fields beyond these pass through. */
export interface LogEntry {
  readonly time: string;
  readonly type?: string;
  readonly severity?: string;
  readonly [field: string]: unknown;
}

/** Which events to list. */
export interface LogQuery {
  /** Only events at or after this time (ISO 8601): the API's `stime`. */
  readonly since?: string;
  /** At most this many events. */
  readonly limit?: number;
  /** `desc` lists the newest first. */
  readonly order?: "asc" | "desc";
}

/** The cluster's event log. */
export function listLogs(client: EnterpriseClient, query: LogQuery = {}): Promise<LogEntry[]> {
  const params = new URLSearchParams();
  if (query.since !== undefined) params.set("stime", query.since);
  if (query.order !== undefined) params.set("order", query.order);
  if (query.limit !== undefined) params.set("limit", String(query.limit));
  const search = params.toString();
  return client.get<LogEntry[]>("/v1/logs", search ? { query: search } : {});
}
