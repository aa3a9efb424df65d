import { assertEmulatorBodyLimit } from "../testing/oversized_body.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "../testing/assert.ts";
import { EMULATOR_COMMAND, startEmulator } from "../testing/emulator_process.ts";

const CLOUD_AUTH = { "x-api-key": "demo-key", "x-api-secret-key": "demo-secret" };
const ENTERPRISE_AUTH = { authorization: `Basic ${btoa("admin@example.com:demo-password")}` };

Deno.test("emulator process: both APIs answer, TLS is trusted through --ca-out, wrong credentials are 401", async () => {
  await using emulator = await startEmulator(["--tls", "--task-delay-ms", "100"]);
  assertMatch(emulator.cloudUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  assertMatch(emulator.enterpriseUrl, /^https:\/\/127\.0\.0\.1:\d+$/);

  const subs = await fetch(`${emulator.cloudUrl}/subscriptions`, { headers: CLOUD_AUTH });
  assertEquals(subs.status, 200);
  const sub = (await subs.json()).subscriptions[0].id;
  const wrong = await fetch(`${emulator.cloudUrl}/subscriptions`, { headers: { ...CLOUD_AUTH, "x-api-key": "x" } });
  assertEquals([wrong.status, (await wrong.json()).status], [401, 401]);

  const created = await fetch(`${emulator.cloudUrl}/subscriptions/${sub}/databases`, {
    method: "POST",
    headers: { ...CLOUD_AUTH, "content-type": "application/json" },
    body: JSON.stringify({ name: "e2e", memoryLimitInGb: 1 }),
  });
  const { taskId } = await created.json();
  await new Promise((r) => setTimeout(r, 150));
  const task = await (await fetch(`${emulator.cloudUrl}/tasks/${taskId}`, { headers: CLOUD_AUTH })).json();
  assertEquals(task.status, "processing-completed");

  const client = Deno.createHttpClient({ caCerts: [emulator.caCert!] });
  try {
    const cluster = await fetch(`${emulator.enterpriseUrl}/v1/cluster`, { client, headers: ENTERPRISE_AUTH });
    assertEquals((await cluster.json()).name, "cluster.example.local"); // a real cluster object has no state
    const denied = await fetch(`${emulator.enterpriseUrl}/v1/cluster`, { client });
    assertEquals([denied.status, (await denied.json()).error_code], [401, "unauthorized"]);
  } finally {
    client.close();
  }
  let untrusted: Error | undefined;
  await fetch(`${emulator.enterpriseUrl}/v1/bootstrap`).catch((e) => untrusted = e);
  assert(untrusted, "a client that does not trust the certificate must fail");
});

async function rssBytes(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(status.match(/VmRSS:\s+(\d+) kB/)![1]) * 1024;
}

Deno.test("emulator process: a 1 GB debuginfo package streams with RSS under 150 MB", async () => {
  await using emulator = await startEmulator(["--debuginfo-mb", "1024"]);
  const res = await fetch(`${emulator.enterpriseUrl}/v1/debuginfo/all`, { headers: ENTERPRISE_AUTH });
  assertEquals(res.headers.get("content-type"), "application/x-gzip");
  let peak = await rssBytes(emulator.pid);
  const sampler = setInterval(async () => peak = Math.max(peak, await rssBytes(emulator.pid).catch(() => 0)), 100);
  // Decompress as we go to count the archive's real (tar) size, not just the gzip bytes.
  let tarBytes = 0;
  try {
    for await (const chunk of res.body!.pipeThrough(new DecompressionStream("gzip"))) tarBytes += chunk.length;
  } finally {
    clearInterval(sampler);
  }
  assert(tarBytes >= 1024 * 1024 * 1024, `tar size ${tarBytes}`);
  assert(peak < 150 * 1024 * 1024, `peak RSS ${(peak / 1048576).toFixed(0)} MB`);
  console.log(`1 GiB package: peak emulator RSS ${(peak / 1048576).toFixed(0)} MB`);
});

Deno.test("emulator process: invalid options exit 2 with a message naming the option", async () => {
  const out = await new Deno.Command(EMULATOR_COMMAND[0], {
    args: [...EMULATOR_COMMAND.slice(1), "--task-delay-ms", "soon"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 2);
  assertMatch(new TextDecoder().decode(out.stderr), /task-delay-ms: expected a whole number/);
});

Deno.test("emulator process: a port in use exits 1 with one line naming the address and its option", async () => {
  using held = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (held.addr as Deno.NetAddr).port;
  for (const [option, other] of [["--cloud-port", "--enterprise-port"], ["--enterprise-port", "--cloud-port"]]) {
    const out = await new Deno.Command(EMULATOR_COMMAND[0], {
      args: [
        ...EMULATOR_COMMAND.slice(1),
        option,
        `${port}`,
        other,
        "0",
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assertEquals([out.code, new TextDecoder().decode(out.stderr)], [
      1,
      `storectl emulator cannot listen on 127.0.0.1:${port}: the address is already in use; ` +
      `stop the other process or choose another ${option} (0 picks a free port)\n`,
    ]);
  }
});

Deno.test("emulator process: a --ca-out it cannot write exits 1 with one line naming the file", async () => {
  const out = await new Deno.Command(EMULATOR_COMMAND[0], {
    args: [
      ...EMULATOR_COMMAND.slice(1),
      "--tls",
      "--ca-out",
      "/proc/storectl-nowhere/ca.pem",
      "--cloud-port",
      "0",
      "--enterprise-port",
      "0",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assertEquals([out.code, stderr.split("\n").length], [1, 2], stderr);
  assertMatch(stderr, /^storectl emulator cannot write the certificate to \/proc\/storectl-nowhere\/ca\.pem: .+; /);
});

Deno.test("emulator process: intentional faults reach the client and leave the emulator's stderr empty", async () => {
  const emulator = await startEmulator(["--tls"], EMULATOR_COMMAND, { captureStderr: true });
  const client = Deno.createHttpClient({ caCerts: [emulator.caCert!] });
  const cloud = (path: string, fault: string, init: RequestInit = {}) =>
    fetch(`${emulator.cloudUrl}${path}`, { ...init, headers: { ...CLOUD_AUTH, "x-emulator-fault": fault } });
  const enterprise = (path: string, init: RequestInit = {}) =>
    fetch(`${emulator.enterpriseUrl}${path}`, { client, ...init, headers: { ...ENTERPRISE_AUTH, ...init.headers } });
  try {
    const failed = await cloud("/regions", "status=503");
    assertEquals([failed.status, (await failed.json()).status], [503, 503]);

    const dropped = await cloud("/subscriptions", "drop=10");
    assertEquals(dropped.status, 200);
    await assertRejects(() => dropped.text());

    const queued = await enterprise("/__emulator/faults", {
      method: "POST",
      body: JSON.stringify({ kind: "drop", afterBytes: 1000, path: "/v1/debuginfo" }),
    });
    assertEquals(queued.status, 201);
    await queued.body?.cancel();
    await assertRejects(async () => await (await enterprise("/v1/debuginfo/all")).arrayBuffer()); // TLS, HTTP/2

    const slow = await cloud("/regions", "stall=200");
    assertEquals(slow.status, 200);
    await slow.body?.cancel();
    await assertRejects(() => cloud("/regions", "stall=10000", { signal: AbortSignal.timeout(200) }));
  } finally {
    client.close();
  }
  assertEquals(await emulator.stop(), "");
});

Deno.test("emulator process: a 500 MB body, declared or chunked, is 413 on both APIs without being read", async () => {
  await using emulator = await startEmulator();
  await assertEmulatorBodyLimit(emulator);
});
