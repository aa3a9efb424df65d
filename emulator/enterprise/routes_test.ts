import { unpackTar } from "modern-tar";
import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { createEmulator, DEFAULT_OPTIONS, type EmulatorOptions } from "../mod.ts";

const AUTH = { authorization: `Basic ${btoa("admin@example.com:demo-password")}` };

function setup(overrides: Partial<EmulatorOptions> = {}) {
  const clock = { ms: Date.UTC(2026, 5, 1) };
  const emulator = createEmulator({ ...DEFAULT_OPTIONS, debuginfoMb: 1, now: () => clock.ms, ...overrides });
  const raw = (method: string, path: string, body?: unknown, headers: Record<string, string> = AUTH) =>
    emulator.enterprise.request(`https://emulator.test${path}`, {
      method,
      headers: { ...headers, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const call = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const res = await raw(method, path, body, headers);
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  };
  return { clock, raw, call, get: (path: string) => call("GET", path) };
}

Deno.test("enterprise: wrong or missing Basic credentials answer 401 {error_code, message}", async () => {
  const { call } = setup();
  const wrong = { authorization: `Basic ${btoa("admin@example.com:nope")}` };
  for (const headers of [{}, wrong]) {
    const res = await call("GET", "/v1/bdbs", undefined, headers);
    assertEquals(res.status, 401);
    assertEquals(res.body.error_code, "unauthorized");
    assertMatch(res.headers.get("www-authenticate")!, /^Basic /);
  }
});

Deno.test("enterprise: /v1/bootstrap answers without credentials", async () => {
  const { call } = setup();
  const res = await call("GET", "/v1/bootstrap", undefined, {});
  assertEquals([res.status, res.body.bootstrap_status.state], [200, "completed"]);
});

Deno.test("enterprise: unicode credentials are compared as UTF-8", async () => {
  const { call } = setup({ password: "pässwörd" });
  const bytes = new TextEncoder().encode("admin@example.com:pässwörd");
  const res = await call("GET", "/v1/cluster", undefined, {
    authorization: `Basic ${btoa(String.fromCharCode(...bytes))}`,
  });
  assertEquals(res.status, 200);
});

Deno.test("enterprise: cluster get and update, stats, alerts, certificates", async () => {
  const { call, get } = setup({ certificate: "-----BEGIN CERTIFICATE-----\n..." });
  const cluster = (await get("/v1/cluster")).body;
  // A real cluster object has neither `status` nor `state` (the specification's table said it had).
  assertEquals(["status" in cluster, "state" in cluster, typeof cluster.name], [false, false, "string"]);
  assertEquals((await call("PUT", "/v1/cluster", { name: "renamed" })).body.name, "renamed");
  assertEquals((await get("/v1/cluster")).body.name, "renamed");
  assertEquals((await call("PUT", "/v1/cluster", { name: "" })).status, 400);
  assertEquals((await call("PUT", "/v1/cluster", { status: "down" })).status, 400);
  const stats = (await get("/v1/cluster/stats/last")).body;
  assert(typeof stats.cpu_user === "number" && Number.isInteger(stats.free_memory));
  assert(Object.keys((await get("/v1/cluster/alerts")).body).length > 0);
  assertMatch((await get("/v1/cluster/certificates")).body.api_cert, /BEGIN CERTIFICATE/);
});

Deno.test("enterprise: nodes have uid, status and the configured software version", async () => {
  const { call, get } = setup({ softwareVersion: "7.4.2" });
  const nodes = (await get("/v1/nodes")).body;
  assertEquals(nodes.map((n: { uid: number }) => n.uid), [1, 2, 3]);
  assert(
    nodes.every((n: { status: string; software_version: string }) =>
      n.status === "active" && n.software_version === "7.4.2"
    ),
  );
  assertEquals((await get("/v1/nodes/2")).body.addr, "10.0.0.2");
  assertEquals((await call("PUT", "/v1/nodes/2", { accept_servers: false })).body.accept_servers, false);
  assertEquals((await get("/v1/nodes/stats/last/2")).body["2"].conns > 0, true);
  assertEquals((await call("DELETE", "/v1/nodes/3")).status, 200);
  assertEquals((await get("/v1/nodes/3")).status, 404);
  assertEquals((await get("/v1/nodes/x")).status, 404);
});

Deno.test("enterprise: bdbs are created pending, become active, update and delete", async () => {
  const { clock, call, get } = setup();
  const before = (await get("/v1/bdbs")).body;
  assert(
    before.every((b: { uid: number; name: string; memory_size: number; status: string }) =>
      Number.isInteger(b.uid) && b.name && Number.isInteger(b.memory_size) && b.status === "active"
    ),
  );
  const created = await call("POST", "/v1/bdbs", { name: "cache-9", memory_size: 1073741824 });
  assertEquals([created.status, created.body.status, created.body.name], [200, "pending", "cache-9"]);
  clock.ms += 2000;
  assertEquals((await get(`/v1/bdbs/${created.body.uid}`)).body.status, "active");
  assertEquals(
    (await call("PUT", `/v1/bdbs/${created.body.uid}`, { memory_size: 2147483648 })).body.memory_size,
    2147483648,
  );
  assertEquals(Object.keys((await get(`/v1/bdbs/stats/last/${created.body.uid}`)).body), [String(created.body.uid)]);
  assertEquals((await call("DELETE", `/v1/bdbs/${created.body.uid}`)).status, 200);
  assertEquals((await get(`/v1/bdbs/${created.body.uid}`)).body.error_code, "not_found");
});

Deno.test("enterprise: invalid bdb bodies are 400, duplicate names 409", async () => {
  const { call } = setup();
  for (
    const body of [{ memory_size: 1 }, { name: "ok" }, { name: "bad name", memory_size: 1 }, {
      name: "x",
      memory_size: 1.5,
    }]
  ) {
    const res = await call("POST", "/v1/bdbs", body);
    assertEquals(res.status, 400, JSON.stringify(body));
    assertEquals(Object.keys(res.body), ["error_code", "message"]);
  }
  assertEquals((await call("POST", "/v1/bdbs", { name: "dup", memory_size: 1 })).status, 200);
  assertEquals((await call("POST", "/v1/bdbs", { name: "dup", memory_size: 1 })).status, 409);
});

Deno.test("enterprise: users, roles, ACLs, crdbs, crdb tasks and logs", async () => {
  const { clock, call, get } = setup();
  const user = await call("POST", "/v1/users", { email: "new@example.com", password: "s3cret", name: "New" });
  assertEquals([user.status, user.body.email, user.body.password], [200, "new@example.com", undefined]);
  assertEquals((await get(`/v1/users/${user.body.uid}`)).body.name, "New");
  assertEquals((await call("POST", "/v1/users", { email: "new@example.com", password: "x" })).status, 409);
  assertEquals((await call("POST", "/v1/users", { email: "nobody" })).status, 400);
  assertEquals((await get("/v1/users")).body.length, 3);
  assertEquals((await get("/v1/roles")).body.length, 6);
  assertEquals((await get("/v1/redis_acls?limit=1")).body.length, 1);
  const task = await call("POST", "/v1/crdbs", { name: "geo" });
  assertEquals(task.body.status, "started");
  clock.ms += 2000;
  const tasks = (await get("/v1/crdb_tasks")).body;
  assertEquals(tasks.find((t: { id: string }) => t.id === task.body.id).status, "finished");
  assert((await get("/v1/crdbs")).body.some((c: { name: string }) => c.name === "geo"));
  const logs = (await get("/v1/logs?order=desc&limit=5")).body;
  assertEquals(logs.length, 5);
  assert(logs[0].time > logs[4].time);
  assertEquals((await get("/v1/logs?order=up")).status, 400);
});

Deno.test("enterprise: one crdb by guid; logs between stime and etime", async () => {
  const { get } = setup();
  const [first] = (await get("/v1/crdbs")).body;
  assertEquals((await get(`/v1/crdbs/${first.guid}`)).body, first);
  const missing = await get("/v1/crdbs/6f1c2a52-0000-4000-8000-999999999999");
  assertEquals([missing.status, missing.body.error_code], [404, "not_found"]);
  const all = (await get("/v1/logs")).body;
  const since = (await get(`/v1/logs?stime=${all[15].time}`)).body;
  assertEquals(since, all.slice(15));
  const window = (await get(`/v1/logs?stime=${all[2].time}&etime=${all[4].time}&order=desc`)).body;
  assertEquals(window, all.slice(2, 5).reverse());
  const bad = await get("/v1/logs?stime=yesterday");
  assertEquals(bad.status, 400);
  assertMatch(bad.body.message, /'stime' must be an ISO 8601 time, got 'yesterday'/);
});

Deno.test("enterprise: unknown endpoints are 404 in the enterprise error format", async () => {
  const { get } = setup();
  const res = await get("/v1/nothing");
  assertEquals([res.status, res.body.error_code], [404, "not_found"]);
});

async function entries(res: Response) {
  const list = await unpackTar(res.body!.pipeThrough(new DecompressionStream("gzip")));
  return list.map((e) => e.header.name);
}

Deno.test("enterprise: the old debuginfo routes answer tar.gz archives for each scope", async () => {
  const { raw } = setup();
  const all = await raw("GET", "/v1/debuginfo/all");
  assertEquals(all.headers.get("content-type"), "application/x-gzip");
  const names = await entries(all);
  assert(names.includes("cluster/cluster_info.json") && names.includes("node_3/logs/redis-4.log"));
  const bdb = await entries(await raw("GET", "/v1/debuginfo/all/bdb/2"));
  assert(bdb.includes("node_1/logs/redis-2.log") && !bdb.includes("node_1/logs/redis-1.log"));
  const node = await entries(await raw("GET", "/v1/debuginfo/node/2"));
  assert(node.every((n) => n.startsWith("node_2/")));
  const nodes = await entries(await raw("GET", "/v1/debuginfo/node"));
  assert(nodes.some((n) => n.startsWith("node_1/")) && nodes.some((n) => n.startsWith("node_3/")));
  assertEquals((await raw("GET", "/v1/debuginfo/node/9")).status, 404);
  assertEquals((await raw("GET", "/v1/debuginfo/all/bdb/x")).status, 404);
});

Deno.test("enterprise: the new debuginfo routes are 404 below 7.4 and served from 7.4", async () => {
  const paths = ["/v1/cluster/debuginfo", "/v1/bdbs/1/debuginfo", "/v1/nodes/1/debuginfo", "/v1/nodes/debuginfo"];
  const old = setup({ softwareVersion: "7.2.4" });
  for (const path of paths) {
    const res = await old.call("GET", path);
    assertEquals(res.status, 404, path);
    assertMatch(res.body.message, /requires server 7\.4/);
  }
  const current = setup({ softwareVersion: "7.4.0" });
  for (const path of paths) {
    const res = await current.raw("GET", path);
    assertEquals(res.status, 200, path);
    assert((await entries(res)).length > 5);
  }
});

Deno.test("enterprise: POST /v1/crdbs validates its body like the other creates (400 invalid_request naming the field)", async () => {
  const { call, get } = setup();
  const before = (await get("/v1/crdbs")).body.length;
  const cases: [unknown, RegExp][] = [
    [{}, /^Field 'name' is required: letters, digits and '-', up to 63 characters$/],
    [{ name: 42 }, /^Field 'name' is required/],
    [{ name: "geo", instances: "everywhere" }, /^Field 'instances' must be an array/],
    [{ name: "geo", instances: [{ cluster: { url: 7 } }] }, /^Field 'instances\.0\.cluster\.url' must be a URL/],
    [
      { name: "geo", default_db_config: { memory_size: -1 } },
      /^Field 'default_db_config\.memory_size' must be a positive integer/,
    ],
    [{ name: "geo", encryption: "yes" }, /^Field 'encryption' must be a boolean/],
    [{ name: "geo", surprise: true }, /^Unknown field 'surprise'; allowed fields are: name, /],
    [[{ name: "geo" }], /^Request body must be a JSON object$/],
  ];
  for (const [body, message] of cases) {
    const res = await call("POST", "/v1/crdbs", body);
    assertEquals([res.status, res.body.error_code], [400, "invalid_request"], JSON.stringify(body));
    assertMatch(res.body.message, message);
  }
  assertEquals((await get("/v1/crdbs")).body.length, before, "nothing was created");
  const full = await call("POST", "/v1/crdbs", {
    name: "geo",
    default_db_config: { memory_size: 1024 ** 3, replication: true },
    instances: [{
      cluster: { url: "https://a.example:9443", name: "a", credentials: { username: "u", password: "p" } },
    }],
    encryption: true,
  });
  assertEquals([full.status, full.body.status], [200, "started"]);
});

Deno.test("enterprise: a bdb's port is in its endpoint (the top-level port is 0 unless asked for)", async () => {
  const { call, get } = setup();
  const [first] = (await get("/v1/bdbs")).body;
  assertEquals(first.port, 0);
  assertEquals(first.endpoints[0].port, 12001);
  assertMatch(first.endpoints[0].dns_name, /^redis-12001\.cluster\.example\.local$/);
  const created = (await call("POST", "/v1/bdbs", { name: "ported", memory_size: 1024, port: 13000 })).body;
  assertEquals([created.port, created.endpoints[0].port], [13000, 13000]);
  assertEquals((await call("POST", "/v1/bdbs", { name: "bad-port", memory_size: 1024, port: 80 })).status, 400);
});

Deno.test("enterprise: both spellings of the stats and node-removal routes answer; under strict-routes only the documented ones", async () => {
  const aliases: [string, string][] = [
    ["GET", "/v1/nodes/1/stats/last"],
    ["GET", "/v1/bdbs/1/stats/last"],
    ["DELETE", "/v1/nodes/3"],
  ];
  const documented: [string, string][] = [
    ["GET", "/v1/nodes/stats/last/1"],
    ["GET", "/v1/bdbs/stats/last/1"],
    ["POST", "/v1/nodes/2/actions/remove"],
  ];
  const lenient = setup();
  for (const [method, path] of [...aliases, ...documented]) {
    assertEquals((await lenient.call(method, path, method === "POST" ? {} : undefined)).status, 200, path);
  }
  const strict = setup({ quirks: new Set(["strict-routes"]) });
  for (const [method, path] of aliases) {
    const res = await strict.call(method, path);
    assertEquals([res.status, res.body.error_code], [404, "not_found"], path);
    assertEquals(res.body.message, `No endpoint ${method} ${path}`);
  }
  for (const [method, path] of documented) {
    assertEquals((await strict.call(method, path, method === "POST" ? {} : undefined)).status, 200, path);
  }
  assertEquals((await strict.get("/v1/nodes/3")).status, 200, "the DELETE alias removed nothing");
});

Deno.test("enterprise: a node removal is an action: queued, running with progress, completed — then the node is gone", async () => {
  const { clock, call, get } = setup({ taskDelayMs: 1000 });
  const started = await call("POST", "/v1/nodes/3/actions/remove", {});
  assertEquals([started.status, started.body.status, started.body.name, started.body.node_uid], [
    200,
    "queued",
    "remove_node",
    "3",
  ]);
  const uid = started.body.action_uid;
  assertEquals((await call("POST", "/v1/nodes/3/actions/remove", {})).status, 409);
  clock.ms += 500;
  const running = (await get(`/v1/actions/${uid}`)).body;
  assertEquals([running.status, running.progress], ["running", "50"]);
  assertEquals((await get("/v1/nodes/3")).status, 200);
  assertEquals((await get("/v1/nodes/3/actions/remove")).body.action_uid, uid);
  clock.ms += 500;
  assertEquals((await get(`/v1/actions/${uid}`)).body.status, "completed");
  assertEquals((await get("/v1/nodes/3")).status, 404);
  assertEquals((await get("/v1/nodes")).body.length, 2);
  assertEquals((await get("/v1/actions")).body.actions.map((a: { action_uid: string }) => a.action_uid), [uid]);
  assertEquals((await get("/v1/actions/nope")).status, 404);
  assertEquals((await call("POST", "/v1/nodes/9/actions/remove", {})).status, 404);
});

Deno.test("enterprise: node and database alerts, keyed by uid; a node shows the shards placed on it", async () => {
  const { get } = setup();
  const nodeAlerts = (await get("/v1/nodes/alerts")).body;
  assertEquals(Object.keys(nodeAlerts), ["1", "2", "3"]);
  assertEquals(nodeAlerts["1"].node_memory.change_value.global_threshold, "80");
  assertEquals(Object.keys((await get("/v1/bdbs/alerts")).body), ["1", "2", "3", "4"]);
  const nodes = (await get("/v1/nodes")).body;
  assertEquals(nodes.map((n: { shard_list: number[] }) => n.shard_list), [[1, 4], [2], [3]]);
  const cluster = (await get("/v1/cluster/alerts")).body;
  assertEquals([cluster.cluster_even_node_count.state, cluster.cluster_even_node_count.enabled], [false, false]);
});
