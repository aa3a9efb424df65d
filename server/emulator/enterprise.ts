import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { checkBody, CrdbCreate } from "./create_bodies.ts";
import { debuginfoRoutes } from "./enterprise_debuginfo.ts";
import { bdb, type EnterpriseData, enterpriseFixture } from "./enterprise_fixture.ts";
import type { Json } from "./fixture.ts";
import { createRandom } from "./random.ts";
import { isName, paginate, parseId, readObject, unknownField } from "./requests.ts";

/** Settings of the enterprise side. */
export interface EnterpriseOptions {
  readonly seed: number;
  readonly username: string;
  readonly password: string;
  readonly softwareVersion: string;
  readonly debuginfoMb: number;
  /** How long a new database stays `pending` and a new crdb task stays `started`. */
  readonly taskDelayMs: number;
  /** The TLS certificate served, shown by `/v1/cluster/certificates`. */
  readonly certificate?: string;
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
const NODE_FIELDS = ["addr", "external_addr", "accept_servers", "rack_id"];
const BDB_FIELDS = ["name", "memory_size", "replication", "sharding", "shards_count", "eviction_policy", "port"];
const BDB_NAME = /^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/;

/** The enterprise API (paths include `/v1`): HTTP Basic, synchronous JSON, debug-info archives. */
export function enterpriseRoutes(options: EnterpriseOptions): { app: Hono; reset(): void } {
  let data: EnterpriseData;
  const random = createRandom(options.seed + 3);
  const reset = () => data = enterpriseFixture(options.seed, options.softwareVersion);
  reset();

  const fail = (c: Context, status: ContentfulStatusCode, message: string) =>
    c.json(enterpriseErrorBody(status, message), status);
  const app = new Hono();

  app.get("/v1/bootstrap", (c) =>
    c.json({
      bootstrap_status: { state: "completed", start_time: "2026-01-01T00:00:00Z", end_time: "2026-01-01T00:02:00Z" },
      local_node_info: { uid: 1, software_version: options.softwareVersion, cores: 4, total_memory: 16 * 1024 ** 3 },
    }));
  app.use("/v1/*", authenticate(options, fail));
  const pendingSince = new WeakMap<Json, number>();
  app.use("/v1/*", async (_c, next) => {
    settlePending([...data.bdbs.values(), ...data.crdbTasks], pendingSince, options);
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
  ) => {
    const body = await readObject(c);
    if (typeof body === "string") return fail(c, 400, body);
    const problem = unknownField(body, fields) ?? check?.(body);
    if (problem) return fail(c, 400, problem);
    Object.assign(record, body);
    return c.json(record);
  };

  app.get("/v1/cluster", (c) => c.json(data.cluster));
  app.put(
    "/v1/cluster",
    (c) =>
      update(
        c,
        data.cluster,
        CLUSTER_FIELDS,
        (b) => "name" in b && !isName(b.name) ? "Field 'name' must be a non-empty string" : undefined,
      ),
  );
  app.get("/v1/cluster/stats/last", (c) => c.json(stats(random, options.now())));
  app.get(
    "/v1/cluster/certificates",
    (c) =>
      c.json(
        options.certificate
          ? { api_cert: options.certificate, cm_cert: options.certificate, proxy_cert: options.certificate }
          : {},
      ),
  );
  app.get("/v1/cluster/alerts", (c) => c.json(data.alerts));

  app.get("/v1/nodes", (c) => list(c, [...data.nodes.values()]));
  app.get("/v1/nodes/:uid{[^/]+}", (c) => {
    const node = find(c, "node", data.nodes);
    return node instanceof Response ? node : c.json(node);
  });
  app.put("/v1/nodes/:uid{[^/]+}", (c) => {
    const node = find(c, "node", data.nodes);
    return node instanceof Response ? node : update(c, node, NODE_FIELDS);
  });
  app.delete("/v1/nodes/:uid{[^/]+}", (c) => {
    const node = find(c, "node", data.nodes);
    if (node instanceof Response) return node;
    if (data.nodes.size === 1) return fail(c, 409, "Cannot remove the last node of the cluster");
    data.nodes.delete(node.uid);
    return c.body(null, 200);
  });
  app.get("/v1/nodes/:uid/stats/last", (c) => {
    const node = find(c, "node", data.nodes);
    return node instanceof Response ? node : c.json({ [node.uid]: stats(random, options.now()) });
  });

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
    const record = {
      ...bdb(uid, body.name, body.memory_size),
      ...body,
      status: "pending",
      created_time: new Date(options.now()).toISOString(),
    };
    pendingSince.set(record, options.now());
    data.bdbs.set(uid, record);
    return c.json(record);
  });
  app.get("/v1/bdbs/:uid{[^/]+}", (c) => {
    const record = find(c, "database", data.bdbs);
    return record instanceof Response ? record : c.json(record);
  });
  app.put("/v1/bdbs/:uid{[^/]+}", (c) => {
    const record = find(c, "database", data.bdbs);
    return record instanceof Response ? record : update(c, record, BDB_FIELDS, (b) => bdbProblem(b, false));
  });
  app.delete("/v1/bdbs/:uid{[^/]+}", (c) => {
    const record = find(c, "database", data.bdbs);
    if (record instanceof Response) return record;
    data.bdbs.delete(record.uid);
    return c.body(null, 200);
  });
  app.get("/v1/bdbs/:uid/stats/last", (c) => {
    const record = find(c, "database", data.bdbs);
    return record instanceof Response ? record : c.json({
      [record.uid]: {
        ...stats(random, options.now()),
        used_memory: Math.round(record.memory_size * random.next() * 0.6),
      },
    });
  });

  app.get("/v1/users", (c) => list(c, [...data.users.values()]));
  app.get("/v1/users/:uid", (c) => {
    const user = find(c, "user", data.users);
    return user instanceof Response ? user : c.json(user);
  });
  app.post("/v1/users", async (c) => {
    const body = await readObject(c);
    if (typeof body === "string") return fail(c, 400, body);
    if (!isName(body.email) || !body.email.includes("@")) {
      return fail(c, 400, "Field 'email' is required and must be an email address");
    }
    if (!isName(body.password)) return fail(c, 400, "Field 'password' is required");
    if ([...data.users.values()].some((u) => u.email === body.email)) {
      return fail(c, 409, `A user with email '${body.email}' already exists`);
    }
    const uid = Math.max(0, ...data.users.keys()) + 1;
    const { password: _secret, ...shown } = body;
    const user = {
      uid,
      name: body.name ?? body.email,
      role: "db_viewer",
      role_uids: [3],
      auth_method: "regular",
      status: "active",
      ...shown,
    };
    data.users.set(uid, user);
    return c.json(user);
  });
  app.get("/v1/roles", (c) => list(c, data.roles));
  app.get("/v1/redis_acls", (c) => list(c, data.redisAcls));

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
    data.crdbs.push({
      guid,
      name: body.name,
      default_db_config: body.default_db_config ?? {},
      instances: body.instances ?? [],
    });
    pendingSince.set(task, options.now());
    return c.json(task);
  });
  app.get("/v1/crdbs/:guid", (c) => {
    const crdb = data.crdbs.find((x) => x.guid === c.req.param("guid"));
    return crdb ? c.json(crdb) : fail(c, 404, `crdb '${c.req.param("guid")}' does not exist`);
  });
  app.get("/v1/crdb_tasks", (c) => list(c, data.crdbTasks));
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
function settlePending(records: Json[], pendingSince: WeakMap<Json, number>, options: EnterpriseOptions) {
  for (const record of records) {
    const since = pendingSince.get(record);
    if (since === undefined || options.now() - since < options.taskDelayMs) continue;
    if (record.status === "pending") record.status = "active";
    if (record.status === "started") record.status = "finished";
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

function bdbProblem(body: Json, creating: boolean): string | undefined {
  if ((creating || "name" in body) && !(typeof body.name === "string" && BDB_NAME.test(body.name))) {
    return "Field 'name' is required: letters, digits and '-', up to 63 characters";
  }
  if ((creating || "memory_size" in body) && !(Number.isSafeInteger(body.memory_size) && body.memory_size > 0)) {
    return "Field 'memory_size' is required and must be a positive integer number of bytes";
  }
  return undefined;
}

function stats(random: ReturnType<typeof createRandom>, now: number): Json {
  return {
    interval: "1sec",
    stime: new Date(now - 1000).toISOString().slice(0, 19) + "Z",
    etime: new Date(now).toISOString().slice(0, 19) + "Z",
    cpu_user: Math.round(random.next() * 40) / 100,
    cpu_system: Math.round(random.next() * 10) / 100,
    cpu_idle: Math.round((0.5 + random.next() * 0.4) * 100) / 100,
    free_memory: random.int(4, 12) * 1024 ** 3,
    available_memory: random.int(6, 12) * 1024 ** 3,
    total_req: random.int(100, 20_000),
    conns: random.int(5, 500),
  };
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
