import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../testing/ctl_in_process.ts";

const env = EMULATOR_ENV;

Deno.test("api: auto output of the raw layer is pretty JSON, coloured on a terminal unless NO_COLOR", async () => {
  await using ctl = await inProcessCtl();
  const piped = await ctl(["api", "cloud", "get", "/subscriptions"], { env });
  assertEquals(piped.code, 0, piped.stderr);
  assertEquals(piped.stdout, `${JSON.stringify(JSON.parse(piped.stdout), null, 2)}\n`);
  const tty = await ctl(["api", "cloud", "get", "/subscriptions"], { env, tty: { stdout: true } });
  assert(tty.stdout.includes('\x1b[34;1m"subscriptions"\x1b[0m'), "keys are coloured");
  assert(!tty.stdout.includes("│"), "no table for a raw response");
  const plain = await ctl(["api", "cloud", "get", "/subscriptions"], {
    env: { ...env, NO_COLOR: "1" },
    tty: { stdout: true },
  });
  assertEquals(plain.stdout, piped.stdout);
});

Deno.test("api: -o table fits the terminal width; an empty list says so on stderr", async () => {
  await using ctl = await inProcessCtl();
  const wide = await ctl(["api", "enterprise", "get", "/v1/bdbs", "-o", "table"], {
    env,
    tty: { stdout: true },
    columns: 60,
  });
  assertEquals(wide.code, 0, wide.stderr);
  for (const line of wide.stdout.trimEnd().split("\n")) assert([...line].length <= 60, `too wide: ${line}`);
  assertMatch(wide.stdout, /│ UID │/);
  assertMatch(wide.stderr, /^\d+ more columns did not fit \(.*\): show them with --wide, -o json, or -q\n$/);
  const empty = await ctl(["api", "enterprise", "get", "/v1/bdbs", "-q", "[?name=='none']", "-o", "table"], {
    env,
    tty: { stdout: true },
  });
  assertEquals([empty.code, empty.stdout, empty.stderr], [0, "", "No results\n"]);
});

Deno.test("api: -o with a word that is not a format is a usage error, and -q applies to a file", async () => {
  await using ctl = await inProcessCtl();
  const yml = await ctl(["api", "enterprise", "get", "/v1/bdbs", "-o", "yml", "-q", "[].name"], { env });
  assertEquals(yml.code, 2);
  assertMatch(
    yml.stderr,
    /'yml' is not an output format \(json, yaml, table or auto\)\n {2}tip: Did you mean -o yaml\?\n/,
  );
  assertMatch(yml.stderr, /use --file yml or -o \.\/yml/);
  assertEquals(yml.requests, [], "nothing was sent");
  const saved = await ctl(["api", "enterprise", "get", "/v1/bdbs", "-o", "./names.json", "-q", "[].name"], { env });
  assertEquals(saved.code, 0, saved.stderr);
  assertEquals(JSON.parse(await Deno.readTextFile(`${ctl.dir}/names.json`)).length, 4);
  const profile = await ctl(["profile", "list", "-o", "./x.json"]);
  assertEquals(profile.code, 2);
  assertMatch(profile.stderr, /-o takes json, yaml, table or auto; got '\.\/x\.json'/);
});

Deno.test("api: -H takes one header per flag and is repeatable; -o=json works", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl([
    "api",
    "cloud",
    "get",
    "-H",
    "x-one: 1",
    "/regions",
    "-H",
    "x-emulator-fault: status=400",
    "-o=json",
  ], { env });
  assertEquals(r.code, 6, r.stderr);
  assertEquals(JSON.parse(r.stderr).error.message, "Injected fault: HTTP 400");
});

Deno.test("api: a cloud path that repeats /v1 is sent once; enterprise adds /v1", async () => {
  await using ctl = await inProcessCtl();
  const cloud = await ctl(["api", "cloud", "get", "/v1/subscriptions", "-q", "length(subscriptions)"], { env });
  assertEquals([cloud.code, cloud.stdout, cloud.requests], [0, "3\n", ["GET /v1/subscriptions"]]);
  const enterprise = await ctl(["api", "enterprise", "get", "bdbs", "-q", "length(@)"], { env });
  assertEquals([enterprise.stdout, enterprise.requests], ["4\n", ["GET /v1/bdbs"]]);
});

Deno.test("api: --file <directory> is checked before sending and gets the server's file name inside", async () => {
  await using ctl = await inProcessCtl();
  await Deno.mkdir(`${ctl.dir}/out`);
  const r = await ctl(["api", "enterprise", "get", "/v1/debuginfo/all", "--file", "out"], { env });
  assertEquals(r.code, 0, r.stderr);
  const bytes = await Deno.readFile(`${ctl.dir}/out/debuginfo-cluster.tar.gz`);
  assertEquals([bytes[0], bytes[1]], [0x1f, 0x8b]);
  const toDevice = await ctl(["api", "enterprise", "get", "/v1/debuginfo/all", "--file", "/dev/null"], { env });
  assertEquals(toDevice.code, 0, toDevice.stderr);
  assert((await Deno.lstat("/dev/null")).isCharDevice, "a device is written in place, not replaced");
  await Deno.writeTextFile(`${ctl.dir}/plain`, "");
  for (const [target, pattern] of [["nowhere/a.tgz", /ENOENT/], ["plain/a.tgz", /ENOTDIR/]] as const) {
    const r = await ctl(["api", "enterprise", "get", "/v1/debuginfo/all", "--file", target], { env });
    assertEquals(r.requests, [], "a target that cannot be written is found before the request");
    assertEquals(r.code, 13, r.stderr);
    assertMatch(r.stderr, pattern);
  }
});

Deno.test("api: a download on a terminal shows progress on stderr, and retries say one line", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl(["api", "enterprise", "get", "/v1/debuginfo/all", "--file", "a.tgz"], {
    env,
    tty: { stderr: true },
  });
  assertEquals(r.code, 0, r.stderr);
  // deno-lint-ignore no-control-regex
  assertMatch(r.stderr, /^\r\x1b\[KDownloading a\.tgz: [\d.]+ (B|KiB), [\d.]+ (B|KiB|MiB|GiB)\/s/);
  assertMatch(r.stderr, /Saved [\d.]+ KiB to .*a\.tgz\n$/); // IEC, as every size ctl prints
  const piped = await ctl(["api", "enterprise", "get", "/v1/debuginfo/all", "--file", "b.tgz"], { env });
  assert(!piped.stderr.includes("\r"), "no progress when stderr is not a terminal");
  ctl.emulator.faults.cloud.add({ kind: "status", status: 503, retryAfter: 0 }, 1);
  const retried = await ctl(["api", "cloud", "get", "/regions", "-q", "length(regions)"], { env });
  assertEquals(retried.code, 0, retried.stderr);
  assertMatch(
    retried.stderr,
    /^Retrying GET http:\/\/cloud\.test\/v1\/regions in \d+ ms: HTTP 503 \(retry 1 of 3\)\n$/,
  );
});

Deno.test("api: client-side mistakes are usage errors and nothing is sent", async () => {
  await using ctl = await inProcessCtl();
  for (
    const [args, pattern] of [
      [["get", "/v1/bdbs", "-d", "{}"], /A GET request cannot carry a body/],
      [["get", "/v1/bdbs", "-H", "bad name: 1"], /Invalid header name "bad name"/],
      [["get", "/v1/bdbs", "-H", "x-a: \u0001"], /Invalid value for header 'x-a'/],
      [["get", "/v1/bdbs", "--query-params", `q=${"a".repeat(9000)}`], /over the 8192 that servers accept/],
    ] as const
  ) {
    const r = await ctl(["api", "enterprise", ...args], { env });
    assertEquals(r.code, 2, r.stderr);
    assertMatch(r.stderr, pattern);
    assertEquals(r.requests, []);
  }
});

Deno.test("api: --timeout and --retries are bounded, and --help says the bounds", async () => {
  await using ctl = await inProcessCtl();
  const timeout = await ctl(["api", "cloud", "get", "/regions", "--timeout", "2147484"], { env });
  assertEquals(timeout.code, 2);
  assertMatch(timeout.stderr, /--timeout must be from 0\.1 to 86400; got '2147484'/);
  const retries = await ctl(["api", "cloud", "get", "/regions", "--retries", "1000000000"], { env });
  assertEquals(retries.code, 2);
  assertMatch(retries.stderr, /--retries must be from 0 to 10; got '1000000000'/);
  const help = await ctl(["api", "--help"]);
  assertMatch(help.stdout, /--timeout\]\s+connect and idle timeout in seconds \(0\.1–86400\)/);
  assertMatch(help.stdout, /--retries\]\s+retries of requests that are safe to repeat \(0–10\)/);
});

Deno.test("api: -d rejects invalid UTF-8 with its byte offset and accepts a byte-order mark", async () => {
  await using ctl = await inProcessCtl();
  const id = (await ctl(["api", "cloud", "get", "/subscriptions", "-q", "subscriptions[0].id"], { env })).stdout.trim();
  const path = `/subscriptions/${id}/databases`;
  await Deno.writeFile(
    `${ctl.dir}/latin1.json`,
    new Uint8Array([...new TextEncoder().encode('{"name":"caf'), 0xe9, 0x22, 0x7d]),
  );
  const bad = await ctl(["api", "cloud", "post", path, "-d", "@latin1.json"], { env });
  assertEquals(bad.code, 2);
  assertMatch(bad.stderr, /latin1\.json is not valid UTF-8: byte 12 \(0xe9\)/);
  assertEquals(bad.requests, []);
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"name": }')]);
  const located = await ctl(["api", "cloud", "post", path, "-d", "@-"], { env, stdin: bom });
  assertMatch(located.stderr, /Invalid JSON in standard input at line 1, column 10/);
  const ok = await ctl(["api", "cloud", "post", path, "-d", "@-", "-q", "status", "--raw"], {
    env,
    stdin: new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"name":"bom","memoryLimitInGb":1}')]),
  });
  assertEquals([ok.code, ok.stdout], [0, "received\n"]);
});

Deno.test("api: a query with an unknown function is a usage error before any request, with the closest name", async () => {
  await using ctl = await inProcessCtl();
  const body = '{"name":"q","datasetSizeInGb":1}';
  const r = await ctl(
    ["api", "cloud", "post", "/subscriptions/156400/databases", "-d", body, "-q", "to_strin(taskId)"],
    {
      env: EMULATOR_ENV,
    },
  );
  assertEquals([r.code, r.requests], [2, []], r.stderr);
  assertMatch(
    r.stderr,
    /^Error: Invalid query 'to_strin\(taskId\)': unknown function to_strin\(\); did you mean to_string\(\)\?\n/,
  );
  assertMatch(r.stderr, /\n {2}to_strin\(taskId\)\n {2}\^ position 0\n/);
  const nested = await ctl(["cloud", "account", "get", "-q", "{n: lenght(name)}"], { env: EMULATOR_ENV });
  assertEquals([nested.code, nested.requests], [2, []]);
  assertMatch(nested.stderr, /unknown function lenght\(\); did you mean length\(\)\?/);
  const known = await ctl(["cloud", "account", "get", "-q", "to_string(id)", "--raw"], { env: EMULATOR_ENV });
  assertEquals(known.code, 0, known.stderr);
});
