import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { createEmulator, DEFAULT_OPTIONS, type EmulatorOptions } from "../mod.ts";

const AUTH = { "x-api-key": "demo-key", "x-api-secret-key": "demo-secret" };

function setup(overrides: Partial<EmulatorOptions> = {}) {
  const clock = { ms: Date.UTC(2026, 5, 1) };
  const emulator = createEmulator({ ...DEFAULT_OPTIONS, now: () => clock.ms, ...overrides });
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = AUTH) => {
    const res = await emulator.cloud.request(`http://emulator.test/v1${path}`, {
      method,
      headers: { ...headers, "content-type": "application/json" },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: res.status === 204 ? null : await res.json() };
  };
  return { clock, emulator, call, get: (path: string) => call("GET", path) };
}

async function firstSubscription(get: (path: string) => Promise<{ body: { subscriptions: { id: number }[] } }>) {
  return (await get("/subscriptions")).body.subscriptions[0].id;
}

Deno.test("cloud: missing or wrong credentials answer 401 with a JSON error", async () => {
  const { call } = setup();
  const attempts: Record<string, string>[] = [{}, { "x-api-key": "demo-key" }, { ...AUTH, "x-api-secret-key": "nope" }];
  for (const headers of attempts) {
    const res = await call("GET", "/subscriptions", undefined, headers);
    assertEquals(res.status, 401);
    assertEquals(res.body.error, "Unauthorized");
    assertEquals(res.body.path, "/v1/subscriptions");
  }
});

Deno.test("cloud: account, payment methods, regions and ACL lists have their documented shapes", async () => {
  const { get } = setup();
  const account = (await get("/")).body.account;
  assert(Number.isInteger(account.id) && typeof account.name === "string");
  assertEquals(account.key.accountId, account.id);
  assertEquals((await get("/payment-methods")).body.paymentMethods.length, 2);
  // A real region is a name and a provider, nothing more.
  for (const region of (await get("/regions")).body.regions) assertEquals(Object.keys(region), ["name", "provider"]);
  assertEquals((await get("/acl/users")).body.users.map((u: { name: string }) => u.name), ["app-reader", "app-writer"]);
  assertEquals((await get("/acl/roles")).body.roles.length, 2);
  assertEquals((await get("/acl/redisRules")).body.redisRules[0].acl, "+@all ~*");
});

Deno.test("cloud: subscriptions and databases are seeded deterministically", async () => {
  const a = setup({ seed: 7 }), b = setup({ seed: 7 }), c = setup({ seed: 8 });
  const names = async (s: typeof a) =>
    (await s.get("/subscriptions")).body.subscriptions.map((x: { name: string }) => x.name);
  assertEquals(await names(a), await names(b));
  assert(JSON.stringify(await names(a)) !== JSON.stringify(await names(c)));
  const subs = (await a.get("/subscriptions")).body.subscriptions;
  assert(subs.length >= 2);
  const sub = subs[0];
  assertEquals((await a.get(`/subscriptions/${sub.id}`)).body.name, sub.name);
  const list = (await a.get(`/subscriptions/${sub.id}/databases`)).body;
  const dbs = list.subscription[0].databases;
  assertEquals(list.subscription[0].numberOfDatabases, dbs.length);
  assert(dbs.length >= 2);
  const db = (await a.get(`/subscriptions/${sub.id}/databases/${dbs[0].databaseId}`)).body;
  assertEquals([typeof db.databaseId, typeof db.name], ["number", "string"]);
  assertEquals(typeof (db.datasetSizeInGb ?? db.memoryLimitInGb), "number");
});

Deno.test("cloud: database create is a task that moves received → initialized → in progress → completed", async () => {
  const { clock, call, get } = setup();
  const sub = await firstSubscription(get);
  const created = await call("POST", `/subscriptions/${sub}/databases`, { name: "new-db", datasetSizeInGb: 2 });
  assertEquals(created.status, 202);
  assertEquals(created.body.status, "received");
  assertEquals(created.body.commandType, "databaseCreateRequest");
  assertEquals(created.body.links[0].rel, "task");
  assertMatch(created.body.links[0].href, new RegExp(`/v1/tasks/${created.body.taskId}$`));
  assert(typeof created.body.description === "string" && typeof created.body.timestamp === "string");

  const task = () => get(`/tasks/${created.body.taskId}`).then((r) => r.body);
  assertEquals((await task()).status, "received");
  clock.ms += 500;
  assertEquals([(await task()).status, (await task()).response], ["initialized", {}]);
  clock.ms += 500;
  assertEquals((await task()).status, "processing-in-progress");
  assertEquals(
    (await get(`/subscriptions/${sub}/databases`)).body.subscription[0].databases.some((d: { name: string }) =>
      d.name === "new-db"
    ),
    false,
  );
  clock.ms += 1000;
  const done = await task();
  assertEquals(done.status, "processing-completed");
  const db = await get(`/subscriptions/${sub}/databases/${done.response.resourceId}`);
  assertEquals([db.status, db.body.name, db.body.datasetSizeInGb, db.body.memoryLimitInGb], [
    200,
    "new-db",
    2,
    undefined,
  ]);
  assertEquals((await get("/tasks")).body[0].taskId, created.body.taskId);
});

Deno.test("cloud: an impossible create ends processing-error with response.error", async () => {
  const { clock, call, get } = setup();
  const sub = await firstSubscription(get);
  const created = await call("POST", `/subscriptions/${sub}/databases`, { name: "huge", memoryLimitInGb: 500 });
  assertEquals(created.status, 202);
  clock.ms += 5000;
  const task = (await get(`/tasks/${created.body.taskId}`)).body;
  assertEquals(task.status, "processing-error");
  assertEquals(task.response.error.type, "DATABASE_SIZE_TOO_BIG");
  assertEquals(task.response.error.status, "400 BAD_REQUEST");
  assertMatch(task.response.error.description, /quota of 50 GB/);
});

Deno.test("cloud: missing name or size, both sizes, or a broken body, is a 400", async () => {
  const { call, get } = setup();
  const sub = await firstSubscription(get);
  for (
    const [body, pattern] of [
      [{ memoryLimitInGb: 1 }, /'name' is required/],
      [{ name: "x" }, /'datasetSizeInGb' \(or the deprecated 'memoryLimitInGb'\) is required/],
      [{ name: "x", memoryLimitInGb: "1" }, /'memoryLimitInGb' must be a number/],
      [{ name: "x", datasetSizeInGb: 1, memoryLimitInGb: 1 }, /cannot set both/],
      ["{not json", /not valid JSON/],
      ["[1]", /must be a JSON object/],
    ] as const
  ) {
    const res = await call("POST", `/subscriptions/${sub}/databases`, body);
    assertEquals(res.status, 400);
    assertEquals(res.body.error, "Bad Request");
    assertMatch(res.body.message, pattern);
  }
  assertEquals((await call("POST", "/subscriptions", {})).status, 400);
});

Deno.test("cloud: unknown or malformed ids are 404 with timestamp, status, error and path", async () => {
  const { get } = setup();
  const sub = await firstSubscription(get);
  for (
    const path of [
      "/subscriptions/1",
      "/subscriptions/abc",
      `/subscriptions/${sub}/databases/999999`,
      "/tasks/nope",
      "/nowhere",
    ]
  ) {
    const res = await get(path);
    assertEquals(res.status, 404, path);
    assertEquals(Object.keys(res.body).sort(), ["error", "message", "path", "status", "timestamp"]);
    assertEquals(res.body.path, `/v1${path}`);
  }
});

Deno.test("cloud: a subscription's databases page by offset and limit; the other lists ignore them", async () => {
  const { get } = setup();
  const sub = await firstSubscription(get);
  const dbs = async (query: string) => (await get(`/subscriptions/${sub}/databases${query}`)).body;
  const all = (await dbs("")).subscription[0].databases;
  assertEquals((await dbs("?offset=1&limit=1")).subscription[0].databases, [all[1]]);
  assertEquals((await dbs("?offset=1&limit=1")).subscription[0].numberOfDatabases, all.length);
  assertEquals((await dbs(`?offset=${all.length}&limit=100`)).subscription[0].databases, []);
  const bad = await get(`/subscriptions/${sub}/databases?limit=-1`);
  assertEquals(bad.status, 400);
  assertMatch(bad.body.message, /'limit' must be a non-negative integer/);
  // The real API reads every task and subscription at once: paging parameters change nothing.
  const subs = (await get("/subscriptions")).body.subscriptions;
  assertEquals((await get("/subscriptions?offset=1&limit=1")).body.subscriptions, subs);
  assertEquals((await get("/regions?limit=2")).body.regions.length, (await get("/regions")).body.regions.length);
});

Deno.test("cloud: updates and deletes are tasks and take effect on completion", async () => {
  const { clock, call, get } = setup();
  const sub = await firstSubscription(get);
  const db = (await get(`/subscriptions/${sub}/databases`)).body.subscription[0].databases[0];
  const update = await call("PUT", `/subscriptions/${sub}/databases/${db.databaseId}`, { memoryLimitInGb: 3 });
  assertEquals([update.status, update.body.commandType], [202, "databaseUpdateRequest"]);
  const current = () => get(`/subscriptions/${sub}/databases/${db.databaseId}`).then((r) => r.body);
  assertEquals((await current()).memoryLimitInGb, db.memoryLimitInGb);
  clock.ms += 2000;
  assertEquals((await current()).memoryLimitInGb, 3);
  // A database is sized one way: a new datasetSizeInGb replaces the deprecated field.
  await call("PUT", `/subscriptions/${sub}/databases/${db.databaseId}`, { datasetSizeInGb: 4 });
  clock.ms += 2000;
  assertEquals([(await current()).datasetSizeInGb, (await current()).memoryLimitInGb], [4, undefined]);

  assertEquals((await call("PUT", `/subscriptions/${sub}/databases/${db.databaseId}`, { memory: 3 })).status, 400);
  const rename = await call("PUT", `/subscriptions/${sub}`, { name: "renamed" });
  const notEmpty = await call("DELETE", `/subscriptions/${sub}`);
  const remove = await call("DELETE", `/subscriptions/${sub}/databases/${db.databaseId}`);
  assertEquals([rename.status, notEmpty.status, remove.status], [202, 202, 202]);
  clock.ms += 2000;
  assertEquals((await get(`/subscriptions/${sub}`)).body.name, "renamed");
  assertEquals((await get(`/tasks/${notEmpty.body.taskId}`)).body.response.error.type, "SUBSCRIPTION_IN_USE");
  assertEquals((await get(`/subscriptions/${sub}/databases/${db.databaseId}`)).status, 404);
});

Deno.test("cloud: a new subscription appears when its task completes", async () => {
  const { clock, call, get } = setup({ taskDelayMs: 0 });
  const created = await call("POST", "/subscriptions", { name: "fresh" });
  assertEquals(created.body.status, "received");
  clock.ms += 1;
  const task = (await get(`/tasks/${created.body.taskId}`)).body;
  assertEquals(task.status, "processing-completed");
  assertEquals((await get(`/subscriptions/${task.response.resourceId}`)).body.numberOfDatabases, 0);
});

Deno.test("cloud: networking reads answer for a subscription, on the documented routes and the specification's", async () => {
  const { get } = setup();
  const sub = await firstSubscription(get);
  assertEquals((await get(`/subscriptions/${sub}/peerings`)).body.peerings[0].status, "active");
  for (const path of ["private-service-connect", "privateServiceConnect"]) {
    assertEquals((await get(`/subscriptions/${sub}/${path}`)).body.status, "active", path);
  }
  for (const path of ["transitGateways", "transitGateway"]) {
    assertEquals((await get(`/subscriptions/${sub}/${path}`)).body.tgws[0].status, "available", path);
  }
});

Deno.test("cloud: networking-tasks: a networking read answers 202 with a task whose response holds the resource", async () => {
  const { clock, get } = setup({ quirks: new Set(["networking-tasks"]) });
  const sub = await firstSubscription(get);
  const cases = [["peerings", "peeringListRequest"], ["private-service-connect", "pscServiceGetRequest"], [
    "transitGateways",
    "tgwGetRequest",
  ]];
  for (const [path, commandType] of cases) {
    const started = await get(`/subscriptions/${sub}/${path}`);
    assertEquals([started.status, started.body.commandType, started.body.status], [202, commandType, "received"]);
    clock.ms += DEFAULT_OPTIONS.taskDelayMs;
    const task = (await get(`/tasks/${started.body.taskId}`)).body;
    assertEquals([task.status, task.response.resourceId], ["processing-completed", sub]);
    const resource = task.response.resource;
    assertEquals(
      path === "peerings"
        ? resource.peerings[0].status
        : path === "transitGateways"
        ? resource.tgws.length
        : resource.id,
      path === "peerings" ? "active" : path === "transitGateways" ? 1 : sub % 1000 + 10,
    );
  }
});

Deno.test("cloud: task-404: a new task answers 404 to its first reads, then as usual", async () => {
  const { call, get } = setup({ quirks: new Set(["task-404"]) });
  const sub = await firstSubscription(get);
  const created = await call("POST", `/subscriptions/${sub}/databases`, { name: "late", datasetSizeInGb: 1 });
  const reads = [];
  for (let i = 0; i < 4; i++) reads.push((await get(`/tasks/${created.body.taskId}`)).status);
  assertEquals(reads, [404, 404, 404, 200]);
});

Deno.test("cloud: page-404: the page after the last of a subscription's databases is 404", async () => {
  const { get } = setup({ quirks: new Set(["page-404"]) });
  const sub = await firstSubscription(get);
  const count = (await get(`/subscriptions/${sub}/databases`)).body.subscription[0].numberOfDatabases;
  assertEquals((await get(`/subscriptions/${sub}/databases?offset=0&limit=100`)).status, 200);
  assertEquals((await get(`/subscriptions/${sub}/databases?offset=${count}&limit=100`)).status, 404);
});

Deno.test("cloud: html-401 and text-429 answer as the real API's front end does", async () => {
  const { emulator } = setup({ quirks: new Set(["html-401", "text-429"]), rateLimitPerMinute: 1 });
  const get = (headers: Record<string, string>) =>
    emulator.cloud.request("http://emulator.test/v1/subscriptions", { headers });
  const unauthorized = await get({ "x-api-key": "nope", "x-api-secret-key": "nope" });
  assertEquals([unauthorized.status, unauthorized.headers.get("content-type")], [401, "text/html; charset=UTF-8"]);
  assertMatch(await unauthorized.text(), /<title>401 Authorization Required<\/title>/);
  await (await get(AUTH)).body?.cancel();
  const limited = await get(AUTH);
  assertEquals([limited.status, await limited.text()], [429, "Too Many Requests"]);
  assert(limited.headers.get("retry-after"));
});

Deno.test("cloud: strict-routes: the specification's spellings of the networking routes are 404", async () => {
  const { get } = setup({ quirks: new Set(["strict-routes"]) });
  const sub = await firstSubscription(get);
  assertEquals((await get(`/subscriptions/${sub}/privateServiceConnect`)).status, 404);
  assertEquals((await get(`/subscriptions/${sub}/transitGateway`)).status, 404);
  assertEquals((await get(`/subscriptions/${sub}/private-service-connect`)).status, 200);
});

Deno.test("cloud: the request budget answers 429 with Retry-After, then recovers next minute", async () => {
  const { clock, get } = setup({ rateLimitPerMinute: 3 });
  clock.ms = Date.UTC(2026, 5, 1, 12, 0, 45);
  for (let i = 0; i < 3; i++) assertEquals((await get("/")).status, 200);
  const limited = await get("/");
  assertEquals(limited.status, 429);
  assertEquals(limited.headers.get("retry-after"), "15");
  assertEquals(limited.body.error, "Too Many Requests");
  clock.ms += 15_000;
  assertEquals((await get("/")).status, 200);
});

Deno.test("cloud: POST /subscriptions validates its body like the other creates (400 naming the field)", async () => {
  const { call, get, clock } = setup();
  const before = (await get("/subscriptions")).body.subscriptions.length;
  const cases: [unknown, RegExp][] = [
    [{}, /^Field 'name' is required and must be a non-empty string$/],
    [{ name: "s", cloudProviders: "aws" }, /^Field 'cloudProviders' must be an array/],
    [
      { name: "s", cloudProviders: [{ provider: "Mars", regions: [{ region: "x" }] }] },
      /^Field 'cloudProviders\.0\.provider' must be one of AWS, GCP$/,
    ],
    [
      { name: "s", cloudProviders: [{ regions: [{ region: { name: "x" } }] }] },
      /^Field 'cloudProviders\.0\.regions\.0\.region' must be a string/,
    ],
    [{ name: "s", cloudProviders: [{ regions: [] }] }, /^Field 'cloudProviders\.0\.regions' must have at least 1 item/],
    [
      { name: "s", databases: [{ name: "d", memoryLimitInGb: "big" }] },
      /^Field 'databases\.0\.memoryLimitInGb' must be a number greater than 0/,
    ],
    [{ name: "s", dryRun: "no" }, /^Field 'dryRun' must be a boolean/],
    [{ name: "s", surprise: 1 }, /^Unknown field 'surprise'; allowed fields are: name, /],
  ];
  for (const [body, message] of cases) {
    const res = await call("POST", "/subscriptions", body);
    assertEquals([res.status, res.body.error], [400, "Bad Request"], JSON.stringify(body));
    assertMatch(res.body.message, message);
  }
  assertEquals((await get("/tasks")).body.length, 0, "no task was started");
  const ok = await call("POST", "/subscriptions", {
    name: "full",
    paymentMethod: "credit-card",
    memoryStorage: "ram",
    cloudProviders: [{
      provider: "GCP",
      regions: [{ region: "europe-west1", networking: { deploymentCIDR: "10.0.0.0/24" } }],
    }],
    databases: [{ name: "d", protocol: "redis", memoryLimitInGb: 1, replication: true }],
  });
  assertEquals(ok.status, 202);
  clock.ms += DEFAULT_OPTIONS.taskDelayMs;
  const subscriptions = (await get("/subscriptions")).body.subscriptions;
  assertEquals(subscriptions.length, before + 1);
  const created = subscriptions.find((s: { name: string }) => s.name === "full");
  assertEquals([created.cloudDetails[0].provider, created.cloudDetails[0].regions[0].region], ["GCP", "europe-west1"]);
});
