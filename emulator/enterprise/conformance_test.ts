/**
 * Holds every enterprise response that `ctl` reads to the real API's objects: the field names
 * and JSON types in `conformance/enterprise_fields.json`, derived from captures of a real
 * cluster and the REST API reference by `tools/enterprise_fields.ts`.
 */
import { assertEquals } from "../../testing/assert.ts";
import FIELDS from "../conformance/enterprise_fields.json" with { type: "json" };
import { createEmulator, DEFAULT_OPTIONS, type EmulatorOptions } from "../mod.ts";

type FieldSetName = keyof typeof FIELDS.objects;
type Body = Record<string, unknown>;

/** What differs between `object` and the real field set `name`: missing, unknown and mistyped fields. */
function problems(object: unknown, name: FieldSetName): string[] {
  const set = FIELDS.objects[name] as { fields: Record<string, string[]>; required: string[] };
  if (object === null || typeof object !== "object" || Array.isArray(object)) return [`not an object`];
  const out: string[] = [];
  for (const field of set.required) if (!(field in object)) out.push(`missing '${field}'`);
  for (const [field, value] of Object.entries(object)) {
    const types = set.fields[field];
    const type = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
    if (!types) out.push(`unknown '${field}'`);
    else if (!types.includes(type)) out.push(`'${field}' is ${type}, real: ${types.join(" or ")}`);
  }
  return out;
}

function setup(overrides: Partial<EmulatorOptions> = {}) {
  const clock = { ms: Date.UTC(2026, 5, 1) };
  const emulator = createEmulator({
    ...DEFAULT_OPTIONS,
    debuginfoMb: 1,
    certificate: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
    now: () => clock.ms,
    ...overrides,
  });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await emulator.enterprise.request(`https://emulator.test${path}`, {
      method,
      headers: {
        authorization: `Basic ${btoa("admin@example.com:demo-password")}`,
        "content-type": "application/json",
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  return { clock, call };
}

/** Checks `objects` against `name`, naming the route in each problem. */
function expect(seen: string[], route: string, name: FieldSetName, objects: unknown[]) {
  if (objects.length === 0) seen.push(`${route}: no ${name} to check`);
  objects.forEach((o, i) => seen.push(...problems(o, name).map((p) => `${route} [${i}] (${name}): ${p}`)));
}

const values = (body: unknown) => Object.values(body as Body);

Deno.test("enterprise conformance: every response ctl reads has the real objects' fields and JSON types", async () => {
  const { clock, call } = setup({ taskDelayMs: 1000 });
  const seen: string[] = [];
  const get = async (path: string) => {
    const res = await call("GET", path);
    if (res.status !== 200) seen.push(`GET ${path}: status ${res.status}`);
    return res.body;
  };

  const bootstrap = await get("/v1/bootstrap");
  expect(seen, "GET /v1/bootstrap", "bootstrap", [bootstrap]);
  expect(seen, "GET /v1/bootstrap", "bootstrap_status", [bootstrap.bootstrap_status]);
  expect(seen, "GET /v1/bootstrap", "local_node_info", [bootstrap.local_node_info]);

  expect(seen, "GET /v1/cluster", "cluster", [await get("/v1/cluster")]);
  expect(seen, "PUT /v1/cluster", "cluster", [(await call("PUT", "/v1/cluster", { name: "c2.example" })).body]);
  expect(seen, "GET /v1/cluster/stats/last", "cluster_stats", [await get("/v1/cluster/stats/last")]);
  expect(seen, "GET /v1/cluster/alerts", "alert", values(await get("/v1/cluster/alerts")));

  const nodes = await get("/v1/nodes");
  expect(seen, "GET /v1/nodes", "node", nodes);
  expect(seen, "GET /v1/nodes/1", "node", [await get("/v1/nodes/1")]);
  expect(seen, "PUT /v1/nodes/2", "node", [(await call("PUT", "/v1/nodes/2", { rack_id: "r" })).body]);
  const nodeStats = await get("/v1/nodes/stats/last/2");
  assertEquals(Object.keys(nodeStats), ["2"]);
  expect(seen, "GET /v1/nodes/stats/last/2", "node_stats", values(nodeStats));
  expect(seen, "GET /v1/nodes/stats/last", "node_stats", values(await get("/v1/nodes/stats/last")));
  expect(seen, "GET /v1/nodes/alerts", "alert", values(await get("/v1/nodes/alerts")).flatMap(values));
  expect(seen, "GET /v1/nodes/alerts/1", "alert", values(await get("/v1/nodes/alerts/1")));

  const bdbs = await get("/v1/bdbs");
  expect(seen, "GET /v1/bdbs", "bdb", bdbs);
  expect(seen, "GET /v1/bdbs (endpoints)", "bdb_endpoint", bdbs.flatMap((b: Body) => b.endpoints));
  const created = (await call("POST", "/v1/bdbs", { name: "conf", memory_size: 1024 ** 3, port: 12345 })).body;
  expect(seen, "POST /v1/bdbs", "bdb", [created]);
  expect(seen, "GET /v1/bdbs/{uid}", "bdb", [await get(`/v1/bdbs/${created.uid}`)]);
  const changed = (await call("PUT", `/v1/bdbs/${created.uid}`, { shards_count: 2, replication: true })).body;
  expect(seen, "PUT /v1/bdbs/{uid}", "bdb", [changed]);
  assertEquals(changed.shard_list.length, 4);
  expect(seen, "GET /v1/bdbs/stats/last/1", "bdb_stats", values(await get("/v1/bdbs/stats/last/1")));
  expect(seen, "GET /v1/bdbs/alerts", "alert", values(await get("/v1/bdbs/alerts")).flatMap(values));

  const removal = (await call("POST", "/v1/nodes/3/actions/remove", {})).body;
  expect(seen, "POST /v1/nodes/3/actions/remove", "action", [removal]);
  clock.ms += 500;
  expect(seen, "GET /v1/actions/{uid}", "action", [await get(`/v1/actions/${removal.action_uid}`)]);
  expect(seen, "GET /v1/nodes/3/actions/remove", "action", [await get("/v1/nodes/3/actions/remove")]);
  const actions = await get("/v1/actions");
  expect(seen, "GET /v1/actions", "actions_list", [actions]);
  expect(seen, "GET /v1/actions (actions)", "action", actions.actions);
  expect(seen, "GET /v1/actions (state-machines)", "state_machine", actions["state-machines"]);

  expect(seen, "GET /v1/users", "user", await get("/v1/users"));
  expect(seen, "GET /v1/users/1", "user", [await get("/v1/users/1")]);
  const newUser = await call("POST", "/v1/users", { email: "c@example.com", password: "pw", role: "db_member" });
  expect(seen, "POST /v1/users", "user", [newUser.body]);
  expect(seen, "GET /v1/roles", "role", await get("/v1/roles"));
  expect(seen, "GET /v1/redis_acls", "redis_acl", await get("/v1/redis_acls"));
  const task = (await call("POST", "/v1/crdbs", {
    name: "geo",
    instances: [{
      cluster: { url: "https://a.example:9443", name: "a", credentials: { username: "u", password: "p" } },
    }],
  })).body;
  expect(seen, "POST /v1/crdbs", "crdb_task", [task]);
  expect(seen, "GET /v1/crdbs", "crdb", await get("/v1/crdbs"));
  expect(seen, "GET /v1/crdbs/{guid}", "crdb", [await get(`/v1/crdbs/${task.crdb_guid}`)]);
  expect(seen, "GET /v1/crdb_tasks", "crdb_task", await get("/v1/crdb_tasks"));
  expect(seen, "GET /v1/crdb_tasks/{id}", "crdb_task", [await get(`/v1/crdb_tasks/${task.id}`)]);
  expect(seen, "GET /v1/logs", "log_event", await get("/v1/logs"));

  assertEquals(seen, []);
});

Deno.test("enterprise conformance: a failed node removal shows the reference's error fields", async () => {
  const { clock, call } = setup({ taskDelayMs: 100 });
  for (const uid of [2, 3]) await call("POST", `/v1/nodes/${uid}/actions/remove`, {});
  clock.ms += 100;
  const last = (await call("POST", "/v1/nodes/1/actions/remove", {})).body;
  clock.ms += 100;
  const failed = (await call("GET", `/v1/actions/${last.action_uid}`)).body;
  assertEquals([failed.status, failed.error_code], ["failed", "insufficient_resources"]);
  assertEquals(problems(failed, "action"), []);
});

Deno.test("problems() names missing, unknown and mistyped fields", () => {
  const user = { uid: 1, name: "a", email: "a@b", extra: 1, status: 3 };
  const found = problems(user, "user");
  for (const expected of ["missing 'role'", "unknown 'extra'", "'status' is number, real: string"]) {
    assertEquals(found.includes(expected), true, `${expected} in ${found.join(", ")}`);
  }
});
