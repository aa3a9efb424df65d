import type { Bdb } from "./bdbs.ts";
import type { Cluster } from "./cluster.ts";
import type { Node } from "./nodes.ts";

/** An alert as the API shows it: `enabled`, `state` (raised), `severity`, and what was measured. */
export interface Alert {
  readonly enabled?: boolean;
  readonly state?: boolean;
  readonly severity?: string;
  readonly change_time?: string;
  readonly change_value?: Readonly<Record<string, unknown>>;
  readonly threshold?: string;
  readonly [field: string]: unknown;
}

/** Alerts by name (`GET /v1/cluster/alerts`, `GET /v1/nodes/alerts/{uid}`). */
export type AlertMap = Readonly<Record<string, Alert>>;

/** A raised alert, and what it is about. */
export interface ActiveAlert {
  readonly name: string;
  readonly scope: "cluster" | "node" | "database";
  readonly uid?: number;
  readonly severity?: string;
}

/** What a cluster's health is read from; a part that could not be read is undefined. */
export interface HealthInput {
  readonly cluster?: Cluster;
  readonly nodes?: readonly Node[];
  readonly bdbs?: readonly Bdb[];
  /** `GET /v1/cluster/alerts`. */
  readonly clusterAlerts?: AlertMap;
  /** `GET /v1/nodes/alerts`: alerts by node uid. */
  readonly nodeAlerts?: Readonly<Record<string, AlertMap>>;
  /** `GET /v1/bdbs/alerts`: alerts by database uid. */
  readonly bdbAlerts?: Readonly<Record<string, AlertMap>>;
}

/** A cluster's health in a word and in a line. */
export interface Health {
  /** `healthy`: everything read is active and no alert is raised; `unknown`: nothing wrong, but a part could not be read. */
  readonly health: "healthy" | "degraded" | "unknown";
  /** e.g. `3/3 nodes active, 4/4 databases active, no active alerts`. */
  readonly summary: string;
  readonly nodes?: { readonly total: number; readonly active: number };
  readonly databases?: { readonly total: number; readonly active: number };
  /** Undefined when some alerts could not be read. */
  readonly alerts?: readonly ActiveAlert[];
}

/** An alert counts when it is enabled and raised: a disabled alert's state is not reported to anyone. */
function raised(map: AlertMap | undefined, scope: ActiveAlert["scope"], uid?: number): ActiveAlert[] {
  return Object.entries(map ?? {})
    .filter(([, alert]) => alert?.enabled !== false && alert?.state === true)
    .map(([name, alert]) => ({ name, scope, ...(uid !== undefined && { uid }), severity: alert.severity }));
}

function count<T extends { uid: number; status?: string }>(
  items: readonly T[] | undefined,
  noun: string,
  label: (item: T) => string,
) {
  if (items === undefined) return { part: `${noun} unknown`, bad: false, known: false };
  const inactive = items.filter((item) => item.status !== "active");
  const detail = inactive.map((item) => `${label(item)}: ${item.status ?? "no status"}`).join(", ");
  return {
    part: `${items.length - inactive.length}/${items.length} ${noun} active${detail ? ` (${detail})` : ""}`,
    bad: inactive.length > 0,
    known: true,
    totals: { total: items.length, active: items.length - inactive.length },
  };
}

/**
 * A cluster's health from what a real cluster returns: its nodes' and databases' `status`
 * (`active` is well), the raised alerts of the cluster, its nodes and databases, and — when the
 * cluster object has them, as the specification describes but real clusters do not — its `status` and
 * `state`.
 *
 * @example
 * ```ts
 * import { summarizeHealth } from "./health.ts";
 * summarizeHealth({ nodes: [{ uid: 1, status: "active" }], bdbs: [], clusterAlerts: {}, nodeAlerts: {}, bdbAlerts: {} });
 * // { health: "healthy", summary: "1/1 nodes active, 0/0 databases active, no active alerts", … }
 * ```
 */
export function summarizeHealth(input: HealthInput): Health {
  const parts: string[] = [];
  let bad = false;
  let unknown = false;
  const { status, state } = input.cluster ?? {};
  if (status !== undefined || state !== undefined) {
    const shown = [...new Set([status, state].filter((v) => v !== undefined))].join("/");
    parts.push(`cluster ${shown}`);
    bad ||= [status, state].some((v) => v !== undefined && v !== "active");
  }
  const nodes = count(input.nodes, "nodes", (n) => `node ${n.uid}`);
  const dbs = count(input.bdbs, "databases", (b) => `${b.uid} ${b.name}`);
  for (const c of [nodes, dbs]) {
    parts.push(c.part);
    bad ||= c.bad;
    unknown ||= !c.known;
  }
  const sources = [input.clusterAlerts, input.nodeAlerts, input.bdbAlerts];
  const alerts = [
    ...raised(input.clusterAlerts, "cluster"),
    ...Object.entries(input.nodeAlerts ?? {}).flatMap(([uid, map]) => raised(map, "node", Number(uid))),
    ...Object.entries(input.bdbAlerts ?? {}).flatMap(([uid, map]) => raised(map, "database", Number(uid))),
  ];
  const allRead = sources.every((s) => s !== undefined);
  const named = alerts.map((a) => (a.uid === undefined ? a.name : `${a.name} on ${a.scope} ${a.uid}`));
  if (alerts.length > 0) {
    parts.push(
      `${alerts.length} active alert${alerts.length > 1 ? "s" : ""}: ${named.join(", ")}${
        allRead ? "" : " (some alerts unknown)"
      }`,
    );
    bad = true;
  } else {
    parts.push(allRead ? "no active alerts" : "alerts unknown");
  }
  unknown ||= !allRead;
  return {
    health: bad ? "degraded" : unknown ? "unknown" : "healthy",
    summary: parts.join(", "),
    ...(nodes.totals && { nodes: nodes.totals }),
    ...(dbs.totals && { databases: dbs.totals }),
    ...(allRead && { alerts }),
  };
}
