import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { checkBody, CrdbCreate } from "../create_bodies.ts";
import { type ActionClock, settleActions } from "./actions.ts";
import { bdbAlerts, clusterAlerts } from "./alerts.ts";
import { applyBdbChanges, bdb, BDB_FIELDS, bdbProblem } from "./bdb.ts";
import { debuginfoRoutes } from "./debuginfo.ts";
import { bootstrapBody, crdb, type EnterpriseData, enterpriseFixture, stateMachine, user } from "./fixture.ts";
import { nodeRoutes } from "./nodes.ts";
import { bdbStats, clusterStats } from "./stats.ts";
import type { Json } from "../fixture.ts";
import type { Quirk } from "../quirks.ts";
import { createRandom } from "../random.ts";
import { isName, paginate, parseId, readObject, unknownField } from "../requests.ts";

/** Settings of the enterprise side. */
export interface EnterpriseOptions {
  readonly seed: number;
  readonly username: string;
  readonly password: string;
  readonly softwareVersion: string;
  readonly debuginfoMb: number;
  /** How long a new database stays `pending`, a crdb task `started`, a node removal running. */
  readonly taskDelayMs: number;
  /** The TLS certificate served, shown by `/v1/cluster/certificates`. */
  readonly certificate?: string;
  /** Behaviours of the real API to reproduce; `strict-routes` answers only documented routes. */
  readonly quirks?: ReadonlySet<Quirk>;
  readonly now: () => number;
}

const ERROR_CODES: Record<number, string> = {
  400: "invalid_request",
  401: "unauthorized",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "payload_too_large",
};

/** The enterprise API's error body. */
export function enterpriseErrorBody(status: number, message: string, _path?: string): Json {
  return { error_code: ERROR_CODES[status] ?? (status >= 500 ? "internal_error" : "error"), message };
}

const CLUSTER_FIELDS = ["name", "email_alerts", "rack_aware"];
const USER_FIELDS = ["email", "password", "name", "role", "email_alerts", "auth_method"];

/**
 * The enterprise API (paths include `/v1`): HTTP Basic, JSON in the real API's shapes,
 * debug-info archives. Where the specification's endpoint table spells a route otherwise than the real
 * API (node stats, database stats, node removal), both answer; under the `strict-routes` quirk
 * only the documented one does.
 */
export function enterpriseRoutes(options: EnterpriseOptions): { app: Hono; reset(): void } {
  let data: EnterpriseData;
  const random = createRandom(options.seed + 3);
  const clock: ActionClock = { started: new Map() };
  const pendingSince = new Map<Json, number>();
  const reset = () => {
    data = enterpriseFixture(options.seed, options.softwareVersion, options.certificate);
    clock.started.clear();
    pendingSince.clear();
  };
  reset();

  const fail = (c: Context, status: ContentfulStatusCode, message: string) =>
    c.json(enterpriseErrorBody(status, message), status);
  /** A route of the specification's table that the real API spells otherwise: 404 under `strict-routes`. */
  const specAlias = (handler: (c: Context) => Response | Promise<Response>) => (c: Context) =>
    options.quirks?.has("strict-routes") ? fail(c, 404, `No endpoint ${c.req.method} ${c.req.path}`) : handler(c);
  const app = new Hono();

  app.get("/v1/bootstrap", (c) => c.json(bootstrapBody(options.softwareVersion)));
  app.use("/v1/*", authenticate(options, fail));
  app.use("/v1/*", async (_c, next) => {
    settlePending(pendingSince, options);
    settleActions(data, clock, options.now(), options.taskDelayMs);
    await next();
  });

  // Before the resource routes, so that `/v1/nodes/debuginfo` is not read as node "debuginfo".
  app.route("/v1", debuginfoRoutes({ ...options, data: () => data, fail }));

  const list = (c: Context, items: readonly Json[]) => {
    const page = paginate(c, items);
    return typeof page === "string" ? fail(c, 400, page) : c.json(page);
  };
  /** Finds a record by the `:uid` path parameter, or answers 404 itself. */
  const find = (c: Context, kind: string, records: Map<number, Json>) => {
    const uid = parseId(c.req.param("uid") ?? "");
    const record = uid === undefined ? undefined : records.get(uid);
    return record ?? fail(c, 404, `${kind} '${c.req.param("uid")}' does not exist`);
  };
  /** Validates a PUT body against the updatable fields, then merges it. */
  const update = async (
    c: Context,
    record: Json,
    fields: readonly string[],
    check?: (body: Json) => string | undefined,
    apply: (body: Json) => void = (body) => Object.assign(record, body),
    show: (record: Json) => Json = (r) => r,
  ) => {
    const body = await readObject(c);
    if (typeof body === "string") return fail(c, 400, body);
    const problem = unknownField(body, fields) ?? check?.(body);
    if (problem) return fail(c, 400, problem);
    apply(body);
    return c.json(show(record));
  };
  /** Statistics keyed by uid, as the `stats/last` routes answer. */
  const keyed = (records: Json[], stats: (record: Json) => Json) =>
    Object.fromEntries(records.map((r) => [String(r.uid), stats(r)]));
  const now = () => options.now();

  // Cluster.
  app.get("/v1/cluster", (c) => c.json(data.cluster));
  app.put("/v1/cluster", (c) =>
    update(
      c,
      data.cluster,
      CLUSTER_FIELDS,
      (b) =>
        "name" in b && !isName(b.name)
          ? "Field 'name' must be a non-empty string"
          : ["email_alerts", "rack_aware"].find((k) => k in b && typeof b[k] !== "boolean") &&
            "Fields 'email_alerts' and 'rack_aware' must be booleans",
    ));
  app.get("/v1/cluster/stats/last", (c) => c.json(clusterStats(random, now())));
  app.get("/v1/cluster/certificates", (c) => {
    const pem = options.certificate;
    return c.json(pem ? { api_cert: pem, cm_cert: pem, proxy_cert: pem } : {});
  });
  app.get("/v1/cluster/alerts", (c) => c.json(clusterAlerts(data.nodes.size)));

  nodeRoutes(app, { data: () => data, clock, random, now, fail, find, list, update, keyed, specAlias });

  // Databases.
  const stats = (record: Json) => bdbStats(random, now(), record.memory_size);
  app.get("/v1/bdbs", (c) => list(c, [...data.bdbs.values()]));
  app.post("/v1/bdbs", async (c) => {
    const body = await readObject(c);
    if (typeof body === "string") return fail(c, 400, body);
    const problem = bdbProblem(body, true) ?? unknownField(body, BDB_FIELDS);
    if (problem) return fail(c, 400, problem);
    if ([...data.bdbs.values()].some((b) => b.name === body.name)) {
      return fail(c, 409, `A database named '${body.name}' already exists`);
    }
    const uid = Math.max(0, ...data.bdbs.keys()) + 1;
    const first = [...data.nodes.values()][0];
    const time = new Date(now()).toISOString().slice(0, 19) + "Z";
    const record = bdb({
      uid,
      name: body.name,
      memorySize: body.memory_size,
      cluster: data.cluster.name,
      nodeAddr: first?.addr ?? "",
      firstShard: ++data.lastShard,
      time,
    });
    applyBdbChanges(record, body, () => ++data.lastShard);
    record.status = "pending";
    const machine = stateMachine(uid, now() / 1000, "active");
    data.stateMachines.push(machine);
    pendingSince.set(record, now());
    pendingSince.set(machine, now());
    data.bdbs.set(uid, record);
    return c.json(record);
  });
  app.get("/v1/bdbs/alerts", (c) => c.json(keyed([...data.bdbs.values()], () => bdbAlerts())));
  app.get("/v1/bdbs/alerts/:uid", (c) => {
    const record = find(c, "database", data.bdbs);
    return record instanceof Response ? record : c.json(bdbAlerts());
  });
  app.get("/v1/bdbs/stats/last", (c) => c.json(keyed([...data.bdbs.values()], stats)));
  app.get("/v1/bdbs/stats/last/:uid", (c) => {
    const record = find(c, "database", data.bdbs);
    return record instanceof Response ? record : c.json(keyed([record], stats));
  });
  app.get("/v1/bdbs/:uid{[^/]+}", (c) => {
    const record = find(c, "database", data.bdbs);
    return record instanceof Response ? record : c.json(record);
  });
  app.put("/v1/bdbs/:uid{[^/]+}", (c) => {
    const record = find(c, "database", data.bdbs);
    return record instanceof Response ? record : update(
      c,
      record,
      BDB_FIELDS,
      (b) => bdbProblem(b, false),
      (b) => {
        applyBdbChanges(record, b, () => ++data.lastShard);
        record.last_changed_time = new Date(now()).toISOString().slice(0, 19) + "Z";
      },
    );
  });
  app.delete("/v1/bdbs/:uid{[^/]+}", (c) => {
    const record = find(c, "database", data.bdbs);
    if (record instanceof Response) return record;
    data.bdbs.delete(record.uid);
    return c.body(null, 200);
  });
  app.get(
    "/v1/bdbs/:uid/stats/last",
    specAlias((c) => {
      const record = find(c, "database", data.bdbs);
      return record instanceof Response ? record : c.json(keyed([record], stats));
    }),
  );

  // Users, roles, ACLs.
  app.get("/v1/users", (c) => list(c, [...data.users.values()]));
  app.get("/v1/users/:uid", (c) => {
    const found = find(c, "user", data.users);
    return found instanceof Response ? found : c.json(found);
  });
  app.post("/v1/users", async (c) => {
    const body = await readObject(c);
    if (typeof body === "string") return fail(c, 400, body);
    if (!isName(body.email) || !body.email.includes("@")) {
      return fail(c, 400, "Field 'email' is required and must be an email address");
    }
    if (!isName(body.password)) return fail(c, 400, "Field 'password' is required");
    const problem = unknownField(body, USER_FIELDS);
    if (problem) return fail(c, 400, problem);
    if ([...data.users.values()].some((u) => u.email === body.email)) {
      return fail(c, 409, `A user with email '${body.email}' already exists`);
    }
    const role = body.role ?? "db_viewer";
    const roleUid = data.roles.find((r) => r.management === role)?.uid;
    if (roleUid === undefined) {
      return fail(c, 400, `Field 'role' must be one of: ${data.roles.map((r) => r.management).join(", ")}`);
    }
    const uid = Math.max(0, ...data.users.keys()) + 1;
    const record = user(uid, body.name ?? body.email, body.email, role, roleUid);
    if (typeof body.email_alerts === "boolean") record.email_alerts = body.email_alerts;
    record.password_issue_date = new Date(now()).toISOString().slice(0, 19) + "Z";
    data.users.set(uid, record);
    return c.json(record);
  });
  app.get("/v1/roles", (c) => list(c, data.roles));
  app.get("/v1/redis_acls", (c) => list(c, data.redisAcls));

  // Active-active.
  app.get("/v1/crdbs", (c) => list(c, data.crdbs));
  app.post("/v1/crdbs", async (c) => {
    const body = await readObject(c);
    if (typeof body === "string") return fail(c, 400, body);
    const problem = checkBody(CrdbCreate, body);
    if (typeof problem === "string") return fail(c, 400, problem);
    const n = data.crdbTasks.length + 1;
    const guid = `6f1c2a52-0000-4000-8000-${String(n).padStart(12, "0")}`;
    const task = { id: `b1e0c7a4-0000-4000-8000-${String(n).padStart(12, "0")}`, status: "started", crdb_guid: guid };
    data.crdbTasks.push(task);
    // Credentials given for the other clusters are never shown again.
    const instances = (body.instances ?? []).map(({ cluster, ...rest }: Json, i: number) => {
      const { credentials: _secret, ...shown } = cluster;
      return { id: i + 1, ...rest, cluster: shown };
    });
    const record = crdb(guid, body.name, body.default_db_config?.memory_size ?? 1024 ** 3, instances);
    record.default_db_config = { ...record.default_db_config, ...body.default_db_config };
    for (const flag of ["encryption", "causal_consistency", "featureset_version"]) {
      if (flag in body) record[flag] = body[flag];
    }
    data.crdbs.push(record);
    pendingSince.set(task, now());
    return c.json(task);
  });
  app.get("/v1/crdbs/:guid", (c) => {
    const found = data.crdbs.find((x) => x.guid === c.req.param("guid"));
    return found ? c.json(found) : fail(c, 404, `crdb '${c.req.param("guid")}' does not exist`);
  });
  app.get("/v1/crdb_tasks", (c) => list(c, data.crdbTasks));
  app.get("/v1/crdb_tasks/:id", (c) => {
    const task = data.crdbTasks.find((t) => t.id === c.req.param("id"));
    return task ? c.json(task) : fail(c, 404, `crdb task '${c.req.param("id")}' does not exist`);
  });

  app.get("/v1/logs", (c) => {
    const order = c.req.query("order") ?? "asc";
    if (order !== "asc" && order !== "desc") {
      return fail(c, 400, `Query parameter 'order' must be 'asc' or 'desc', got '${order}'`);
    }
    const bounds = timeBounds(c.req.query("stime"), c.req.query("etime"));
    if (typeof bounds === "string") return fail(c, 400, bounds);
    const logs = data.logs.filter((e) => Date.parse(e.time) >= bounds.start && Date.parse(e.time) <= bounds.end);
    return list(c, order === "desc" ? logs.reverse() : logs);
  });

  return { app, reset };
}

/** Moves records created in a transient state to their final state once `taskDelayMs` passed. */
function settlePending(pendingSince: Map<Json, number>, options: EnterpriseOptions) {
  for (const [record, since] of pendingSince) {
    if (options.now() - since < options.taskDelayMs) continue;
    if (record.status === "pending") record.status = "active";
    if (record.status === "started") record.status = "finished";
    if (record.status === "active" && "object_name" in record) record.status = "completed";
    pendingSince.delete(record);
  }
}

/** The `stime` and `etime` query parameters (ISO 8601) as milliseconds, or what is wrong with one. */
function timeBounds(stime?: string, etime?: string): { start: number; end: number } | string {
  const bounds = { start: -Infinity, end: Infinity };
  for (const [name, raw, key] of [["stime", stime, "start"], ["etime", etime, "end"]] as const) {
    if (raw === undefined) continue;
    const ms = Date.parse(raw);
    if (Number.isNaN(ms)) return `Query parameter '${name}' must be an ISO 8601 time, got '${raw}'`;
    bounds[key] = ms;
  }
  return bounds;
}

type Fail = (c: Context, status: ContentfulStatusCode, message: string) => Response;

function authenticate(options: EnterpriseOptions, fail: Fail) {
  const credentials = new TextEncoder().encode(`${options.username}:${options.password}`);
  const expected = `Basic ${btoa(String.fromCharCode(...credentials))}`;
  return async (c: Context, next: () => Promise<void>) => {
    if (c.req.header("authorization") !== expected) {
      c.header("www-authenticate", 'Basic realm="storectl-emulator"');
      return fail(c, 401, "Authentication failed: wrong or missing username and password");
    }
    return await next();
  };
}
