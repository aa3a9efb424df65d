/**
 * End-to-end scenarios of `ctl` against the emulator, run on Deno and on the Node bundle by
 * `ctl_deno_test.ts` and `ctl_node_test.ts`.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import type { World } from "../testing/ctl_process.ts";
import { keyValues, tableRows } from "../testing/table_text.ts";
import { atTerminal } from "../testing/terminal.ts";

export type { World } from "../testing/ctl_process.ts";

const PASSWORD = "demo-password";

export function freePortUrl(): string {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return `http://127.0.0.1:${port}`;
}

async function expectOk(result: Promise<{ code: number; stdout: string; stderr: string }>) {
  const r = await result;
  assertEquals(r.code, 0, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

async function expectFail(
  result: Promise<{ code: number; stdout: string; stderr: string }>,
  code: number,
  pattern: RegExp,
) {
  const r = await result;
  assertEquals(r.code, code, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  assertMatch(r.stderr, pattern);
  return r;
}

/** Named scenarios; each may rely on the profiles made by "profiles". */
/**
 * Loads `ctl completions bash` into a real bash (with the bash-completion package) and returns a
 * function that completes the last of `words`, as pressing Tab after `ctl <words…>` would.
 */
export async function bashCompleter(
  { ctl, command, dir }: World,
  env: Record<string, string> = {},
): Promise<(...words: string[]) => Promise<string[]>> {
  const script = `${dir}/ctl.bash`;
  const result = await ctl(["completions", "bash"]);
  assertEquals(result.code, 0, result.stderr);
  await Deno.writeTextFile(script, result.stdout);
  const bin = `${dir}/bin`;
  await Deno.mkdir(bin, { recursive: true });
  await Deno.writeTextFile(`${bin}/ctl`, `#!/bin/sh\nexec ${command.map((a) => `'${a}'`).join(" ")} "$@"\n`, {
    mode: 0o755,
  });
  return async (...words) => {
    const line = `ctl ${words.join(" ")}`;
    const out = await new Deno.Command("bash", {
      args: [
        "-c",
        `source "$1"; source "$2"; COMP_WORDS=(${["ctl", ...words].map((w) => `'${w}'`).join(" ")}); ` +
        `COMP_CWORD=${words.length}; COMP_LINE='${line}'; COMP_POINT=${line.length}; __ctl_complete 2>/dev/null; ` +
        `printf '%s\\n' "\${COMPREPLY[@]}"`,
        "bash",
        "/usr/share/bash-completion/bash_completion",
        script,
      ],
      env: { PATH: `${bin}:${Deno.env.get("PATH")}`, ...env },
      stdout: "piped",
      stderr: "null",
    }).output();
    return new TextDecoder().decode(out.stdout).trim().split("\n");
  };
}

export const SCENARIOS: Record<string, (w: World) => Promise<void>> = {
  async "profile set writes a 0600 config, and api calls read it"({ ctl, emulator, dir, caFile }) {
    await expectOk(ctl([
      "profile",
      "set",
      "c",
      "--deployment",
      "cloud",
      "--api-key",
      "demo-key",
      "--api-secret",
      "demo-secret",
      "--api-url",
      emulator.cloudUrl,
    ]));
    await expectOk(ctl([
      "profile",
      "set",
      "e",
      "--deployment",
      "enterprise",
      "--url",
      emulator.enterpriseUrl,
      "--username",
      "admin@example.com",
      "--password",
      PASSWORD,
      "--ca-cert",
      caFile,
    ]));
    assertEquals((await Deno.stat(`${dir}/config.toml`)).mode! & 0o777, 0o600);
    const names = await expectOk(ctl(["api", "cloud", "get", "/subscriptions", "-q", "subscriptions[].name", "--raw"]));
    assertEquals(names.stdout.trim().split("\n").length, 3);
    const bdbs = await expectOk(ctl(["api", "enterprise", "get", "/v1/bdbs", "-q", "[].name", "-o", "json"]));
    assertEquals(JSON.parse(bdbs.stdout).length, 4);
    // A real cluster object has no `state`: its name shows the path got `/v1` in front.
    const noPrefix = await expectOk(ctl(["api", "enterprise", "get", "cluster", "-q", "name", "--raw"]));
    assertEquals(noPrefix.stdout, "cluster.example.local\n");
  },

  async "outputs yaml and tables, and piped auto output is JSON"({ ctl }) {
    const yaml = await expectOk(ctl(["api", "enterprise", "get", "/v1/cluster", "-o", "yaml"]));
    assertMatch(yaml.stdout, /^name: cluster\.example\.local$/m);
    const table = await expectOk(
      ctl(["api", "enterprise", "get", "/v1/nodes", "-q", "[].{uid:uid,status:status}", "-o", "table"]),
    );
    assertMatch(table.stdout, /│ UID │ STATUS │/);
    JSON.parse((await expectOk(ctl(["api", "enterprise", "get", "/v1/nodes"]))).stdout);
  },

  async "tables on a terminal 80 and 120 columns wide: names and status whole, one object as KEY/VALUE rows"(world) {
    const names = JSON.parse((await expectOk(world.ctl(["cloud", "subscription", "list", "-q", "[].name"]))).stdout);
    for (const columns of [80, 120]) {
      const list = await atTerminal(world, ["cloud", "subscription", "list"], { columns });
      assertEquals(list.code, 0, list.shown);
      const table = list.shown.split("\n").filter((line) => /^[┌│└]/.test(line));
      for (const line of table) assert([...line].length <= columns, `wider than ${columns}:\n${list.shown}`);
      const rows = tableRows(list.shown);
      assertEquals(rows.map((row) => row.NAME), names, list.shown);
      for (const header of ["ID", "STATUS", "DATABASES"]) assert(header in rows[0], `${header}:\n${list.shown}`);
      const cluster = await atTerminal(world, ["enterprise", "cluster", "get"], { columns });
      assertEquals(cluster.code, 0, cluster.shown);
      const fields = keyValues(cluster.shown);
      assertEquals(fields.NAME, "cluster.example.local");
      assertMatch(fields.STATUS, /^healthy: \d+\/\d+ nodes active, \d+\/\d+ databases active, no active alerts$/);
    }
  },

  async "messages on a terminal's stderr wrap at its width, under their label"(world) {
    const r = await atTerminal(world, ["cloud", "--bogus-flag-with-a-long-name", "x"], { columns: 40 });
    const shown = await atTerminal(world, ["profle", "list"], { columns: 40 });
    assertEquals([r.code, shown.code], [2, 2], r.shown);
    assertEquals(
      shown.shown,
      "Error: Unknown command 'profle'\n  tip: Did you mean 'profile'?\n" +
        "  tip: Run ctl --help to see the\n       commands\n",
    );
    for (const line of r.shown.trimEnd().split("\n")) assert([...line].length <= 40, `wider than 40: '${line}'`);
  },

  async "a database create from @file completes as a task"({ ctl, dir }) {
    const sub = (await expectOk(ctl(["api", "cloud", "get", "/subscriptions", "-q", "subscriptions[0].id", "--raw"])))
      .stdout.trim();
    await Deno.writeTextFile(`${dir}/db.json`, JSON.stringify({ name: "from-file", datasetSizeInGb: 1 }));
    const created = await expectOk(
      ctl(["api", "cloud", "post", `/subscriptions/${sub}/databases`, "-d", `@${dir}/db.json`]),
    );
    const taskId = JSON.parse(created.stdout).taskId;
    // A task this new may answer 404 for a moment (the emulator runs with --real-api): task wait rides it out.
    const status = await expectOk(
      ctl(["cloud", "task", "wait", taskId, "--wait-interval", "0.1", "-q", "status", "--raw"]),
    );
    assertEquals(status.stdout, "processing-completed\n");
    const fromStdin = await expectOk(
      ctl(["api", "cloud", "post", `/subscriptions/${sub}/databases`, "-d", "@-"], {
        stdin: '{"name":"stdin-db","datasetSizeInGb":2}',
      }),
    );
    assertEquals(JSON.parse(fromStdin.stdout).status, "received");
  },

  async "invalid JSON is rejected with its position before any request"({ ctl }) {
    const r = await expectFail(
      ctl(["api", "cloud", "post", "/subscriptions", "-d", '{"name": }'], {
        env: { STORE_CLOUD_API_URL: freePortUrl(), STORE_CLOUD_API_KEY: "k", STORE_CLOUD_API_SECRET: "s" },
      }),
      2,
      /Invalid JSON in --data at line 1, column 10/,
    );
    assert(!/connect/i.test(r.stderr));
    // The position once, in the same words on every runtime, and a tip for this mistake.
    assertEquals(
      r.stderr,
      "Error: Invalid JSON in --data at line 1, column 10 near '}': expected a value; nothing was sent\n" +
        "  tip: Fix --data at line 1, column 10\n",
    );
    const comma = await expectFail(ctl(["api", "cloud", "post", "/subscriptions", "-d", '{"a": 1,}']), 2, /column 9/);
    assertMatch(
      comma.stderr,
      /expected a property name in double quotes; nothing was sent\n {2}tip: JSON has no comma/,
    );
  },

  async "--query-params and -H reach the server"({ ctl }) {
    const sub = (await expectOk(ctl(["api", "cloud", "get", "/subscriptions", "-q", "subscriptions[0].id", "--raw"])))
      .stdout.trim();
    const page = await expectOk(
      ctl([
        "api",
        "cloud",
        "get",
        `/subscriptions/${sub}/databases`,
        "--query-params",
        "offset=1&limit=1",
        "-q",
        "length(subscription[0].databases)",
      ]),
    );
    assertEquals(page.stdout.trim(), "1");
    await expectFail(
      ctl(["api", "cloud", "get", "/regions", "-H", "x-emulator-fault: status=400"]),
      6,
      /Injected fault: HTTP 400/,
    );
  },

  async "API errors have their exit codes and messages"({ ctl }) {
    const auth = await expectFail(
      ctl(["api", "cloud", "get", "/subscriptions"], { env: { STORE_CLOUD_API_KEY: "wrong-key-0123456789" } }),
      4,
      /Authentication failed for profile 'c' \(key wron…6789\)/,
    );
    assert(!auth.stderr.includes("demo-secret"));
    const sub = (await expectOk(ctl(["api", "cloud", "get", "/subscriptions", "-q", "subscriptions[0].id", "--raw"])))
      .stdout.trim();
    await expectFail(
      ctl(["api", "cloud", "post", `/subscriptions/${sub}/databases`, "-d", '{"name":"x"}']),
      6,
      /Field 'datasetSizeInGb' \(or the deprecated 'memoryLimitInGb'\) is required/,
    );
    await expectFail(ctl(["api", "cloud", "get", "/subscriptions/1"]), 5, /Not found: GET \/subscriptions\/1/);
    const json = await expectFail(ctl(["api", "enterprise", "get", "/v1/bdbs/99", "-o", "json"]), 5, /^\{"error":/);
    assertEquals(JSON.parse(json.stderr).error.code, "not_found");
    assertEquals(JSON.parse(json.stderr).error.status, 404);
  },

  async "429 is retried, then reported as rate limited"({ ctl, emulator }) {
    const admin = `${emulator.cloudUrl.replace(/\/v1$/, "")}/__emulator/faults`;
    await fetch(admin, {
      method: "POST",
      body: JSON.stringify({ kind: "status", status: 429, retryAfter: 0, count: 4 }),
    });
    await expectFail(
      ctl(["api", "cloud", "get", "/regions"]),
      9,
      /Rate limited: GET \/regions got HTTP 429 after 4 attempts/,
    );
    await fetch(admin, {
      method: "POST",
      body: JSON.stringify({ kind: "status", status: 503, retryAfter: 0, count: 2 }),
    });
    await expectOk(ctl(["api", "cloud", "get", "/regions"]));
  },

  async "TLS: untrusted fails naming both fixes; --insecure, the env variable and --ca-cert work"({ ctl, emulator }) {
    const env = {
      STORE_ENTERPRISE_URL: emulator.enterpriseUrl,
      STORE_ENTERPRISE_USER: "admin@example.com",
      STORE_ENTERPRISE_PASSWORD: PASSWORD,
    };
    const noConfig = { ...env, STORE_CONFIG_FILE: "/nonexistent/config.toml" };
    const r = await expectFail(
      ctl(["api", "enterprise", "get", "/v1/cluster"], { env: noConfig }),
      10,
      /TLS certificate verification failed/,
    );
    assertMatch(r.stderr, /--ca-cert/);
    assertMatch(r.stderr, /--insecure/);
    // The cause in the same words on Deno and Node, none of the runtime's error chain; the tips stay.
    assertMatch(
      r.stderr,
      /^Error: TLS certificate verification failed for https:\/\/127\.0\.0\.1:\d+\/v1\/cluster: the server's certificate is signed by no authority this machine trusts \(self-signed, or a private CA\)\n {2}tip: Trust/,
    );
    assert(!/fetch failed|error sending request|client error|DEPTH_ZERO|UnknownIssuer/.test(r.stderr), r.stderr);
    await expectOk(ctl(["api", "enterprise", "get", "/v1/cluster", "--insecure"], { env: noConfig }));
    await expectOk(
      ctl(["api", "enterprise", "get", "/v1/cluster"], { env: { ...noConfig, STORE_ENTERPRISE_INSECURE: "true" } }),
    );
    await expectOk(ctl(["api", "enterprise", "get", "/v1/cluster", "-p", "e"])); // trusted through the profile's ca_cert
  },

  async "refused connections and timeouts name the URL and cause"({ ctl }) {
    const url = freePortUrl();
    const refused = await expectFail(
      ctl(["api", "cloud", "get", "/regions", "--retries", "2"], {
        env: { STORE_CLOUD_API_URL: `${url}/v1`, STORE_CLOUD_API_KEY: "k", STORE_CLOUD_API_SECRET: "s" },
      }),
      10,
      new RegExp(`Failed to connect to ${url}/v1/regions: connection refused`),
    );
    // One line per retry, the cause in words, the same on every runtime.
    const retries = refused.stderr.split("\n").filter((line) => line.startsWith("Retrying"));
    assertEquals(retries.length, 2, refused.stderr);
    retries.forEach((line, i) =>
      assertMatch(
        line,
        new RegExp(`^Retrying GET ${url}/v1/regions in \\d+ ms: connection refused \\(retry ${i + 1} of 2\\)$`),
      )
    );
    await expectFail(
      ctl([
        "api",
        "enterprise",
        "get",
        "/v1/cluster",
        "-H",
        "x-emulator-fault: stall=5000",
        "--timeout",
        "0.5",
        "--retries",
        "0",
      ]),
      11,
      /within 0.5 s/,
    );
  },

  async "binary responses stream to a file atomically, or to a pipe"({ ctl, dir }) {
    await expectOk(ctl(["api", "enterprise", "get", "/v1/debuginfo/all", "--file", `${dir}/a.tgz`]));
    await expectOk(ctl(["api", "enterprise", "get", "/v1/debuginfo/node/1", "-o", `${dir}/b.tgz`]));
    for (const name of ["a.tgz", "b.tgz"]) {
      const bytes = await Deno.readFile(`${dir}/${name}`);
      assertEquals([bytes[0], bytes[1]], [0x1f, 0x8b]);
    }
    const piped = await expectOk(ctl(["api", "enterprise", "get", "/v1/debuginfo/node/2"]));
    assert(piped.stdout.length > 1000);
    const download = ["api", "enterprise", "get", "/v1/debuginfo/all", "--file", `${dir}/c.tgz`];
    await expectFail(
      ctl([...download, "-H", "x-emulator-fault: drop=5000"]),
      10,
      /The connection to https:\/\/127\.0\.0\.1:\d+\/v1\/debuginfo\/all (was closed unexpectedly|broke while receiving)/,
    );
    const leftovers = [];
    for await (const entry of Deno.readDir(dir)) if (/c\.tgz|partial/.test(entry.name)) leftovers.push(entry.name);
    assertEquals(leftovers, []);
  },

  async "--curl prints the request with secrets redacted and sends nothing"({ ctl }) {
    const r = await expectOk(ctl(["api", "cloud", "post", "/subscriptions", "-d", '{"name":"x"}', "--curl"], {
      env: {
        STORE_CLOUD_API_URL: `${freePortUrl()}/v1`,
        STORE_CLOUD_API_KEY: "secret-key-123456",
        STORE_CLOUD_API_SECRET: "secret-456789",
      },
    }));
    assertMatch(
      r.stdout,
      /^curl -X POST 'http:\/\/127\.0\.0\.1:\d+\/v1\/subscriptions' .*-H 'x-api-key: \*\*\*' -H 'x-api-secret-key: \*\*\*'/,
    );
    assert(!r.stdout.includes("KEY-0123") && !r.stdout.includes("SECRET-0123"));
  },

  async "profile list, show, path, default, current and remove; secrets masked"({ ctl, dir }) {
    const list = JSON.parse((await expectOk(ctl(["profile", "list", "-o", "json"]))).stdout);
    assertEquals(list.map((p: { name: string }) => p.name), ["c", "e"]);
    const show = await expectOk(ctl(["profile", "show", "e", "-o", "json"]));
    assertEquals(JSON.parse(show.stdout).password, "****");
    assert(!show.stdout.includes(PASSWORD));
    assertEquals((await expectOk(ctl(["profile", "path"]))).stdout, `${dir}/config.toml\n`);
    await expectOk(ctl(["profile", "default", "e"]));
    const current = JSON.parse((await expectOk(ctl(["profile", "current", "enterprise", "-o", "json"]))).stdout);
    assertEquals(current, [{ deployment: "enterprise", profile: "e", reason: "default_enterprise" }]);
    await expectOk(ctl(["profile", "set", "tmp", "--deployment", "cloud", "--api-key", "k"]));
    await expectFail(ctl(["profile", "remove", "tmp"]), 2, /Delete profile 'tmp': confirm with --yes/);
    await expectOk(ctl(["profile", "remove", "tmp", "--yes"]));
    await expectFail(ctl(["profile", "show", "tmp"]), 3, /Profile 'tmp' not found\n {2}tip: Existing profiles: c, e/);
    await expectFail(ctl(["api", "cloud", "get", "/", "-p", "nope"]), 3, /Profile 'nope' not found/);
  },

  async "profile updates keep unrelated keys and ${VAR} references; broken files are never rewritten"({ ctl, dir }) {
    const path = `${dir}/config.toml`;
    const original = await Deno.readTextFile(path);
    await Deno.writeTextFile(
      path,
      `${original}\n[profiles.v]\ndeployment_type = "enterprise"\nurl = "\${V_URL}"\nextra = "kept"\n`,
    );
    await expectOk(ctl(["profile", "set", "v", "--username", "someone"]));
    const text = await Deno.readTextFile(path);
    assertMatch(text, /url = "\$\{V_URL\}"/);
    assertMatch(text, /extra = "kept"/);
    assertMatch(text, /username = "someone"/);
    assertMatch(text, /\[profiles\.c\]/);
    await Deno.writeTextFile(path, `${text}\n[broken\n`);
    const before = await Deno.readTextFile(path);
    await expectFail(
      ctl(["profile", "set", "v", "--username", "x"]),
      3,
      /Cannot parse .*config\.toml at line \d+, column \d+/,
    );
    assertEquals(await Deno.readTextFile(path), before);
    await Deno.writeTextFile(path, text);
  },

  async "environment variables take priority over the profile"({ ctl }) {
    await expectFail(
      ctl(["api", "enterprise", "get", "/v1/cluster", "-p", "e"], { env: { STORE_ENTERPRISE_PASSWORD: "wrong" } }),
      4,
      /Authentication failed for profile 'e' \(user admin@example\.com\)/,
    );
  },

  async "-vv and STORE_LOG log to stderr without secrets"({ ctl }) {
    const r = await expectOk(ctl(["api", "enterprise", "get", "/v1/cluster", "-p", "e", "-vv"]));
    assertMatch(r.stderr, /profile 'e' \(from --profile\)/);
    assertMatch(r.stderr, /password \*\*\*\* from profile 'e'/);
    assertMatch(r.stderr, /GET https:\/\/127\.0\.0\.1:\d+\/v1\/cluster → 200/);
    assert(!r.stderr.includes(PASSWORD));
    JSON.parse(r.stdout);
    const logged = await expectOk(
      ctl(["api", "enterprise", "get", "/v1/cluster", "-p", "e"], { env: { RUST_LOG: "storectl::http=debug" } }),
    );
    assertMatch(logged.stderr, /DEBUG http: GET/);
    assert(!/config:/.test(logged.stderr));
  },

  async "usage errors: unknown command with a suggestion, missing argument, bad query"({ ctl }) {
    await expectFail(ctl(["profle", "list"]), 2, /Unknown command 'profle'\n {2}tip: Did you mean 'profile'\?/);
    await expectFail(ctl(["api", "cloud"]), 2, /Missing required argument 'method'/);
    await expectFail(
      ctl(["api", "cloud", "fetch", "/x"]),
      2,
      /<method> must be one of get, post, put, patch, delete; got 'fetch'/,
    );
    await expectFail(
      ctl(["api", "cloud", "get", "/regions", "-q", "regions[?"]),
      2,
      /Invalid query 'regions\[\?'[\s\S]*position 9/,
    );
    await expectFail(ctl(["--bogus"]), 2, /^Error: Unknown flag --bogus\n/);
    await expectFail(ctl(["--bogus", "cloud", "account", "get"]), 2, /^Error: Unknown flag --bogus\n/);
    await expectFail(ctl(["cloud", "region", "list", "-o", "yml"]), 2, /got 'yml'\n {2}tip: Did you mean -o yaml\?\n$/);
  },

  async "--version and --help at every level"({ ctl }) {
    assertMatch((await expectOk(ctl(["--version"]))).stdout, /^\d+\.\d+\.\d+\n$/);
    assertMatch((await expectOk(ctl(["--help"]))).stdout, /^USAGE\n {2}ctl api/);
    assertMatch((await expectOk(ctl(["api", "--help"]))).stdout, /Examples:\n {2}ctl api enterprise get/);
    assertMatch((await expectOk(ctl(["profile", "set", "--help"]))).stdout, /^USAGE\n {2}ctl profile set <name>\n/);
  },

  async "HTTP_PROXY is honoured"({ ctl, emulator }) {
    const seen: string[] = [];
    const proxy = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
      seen.push(req.url);
      const upstream = await fetch(req.url, { method: req.method, headers: req.headers });
      return new Response(upstream.body, { status: upstream.status, headers: upstream.headers });
    });
    try {
      const cloud = emulator.cloudUrl.replace("127.0.0.1", "localhost");
      await expectOk(ctl(["api", "cloud", "get", "/regions", "--retries", "0"], {
        env: { HTTP_PROXY: `http://127.0.0.1:${proxy.addr.port}`, STORE_CLOUD_API_URL: cloud, NO_PROXY: "" },
      }));
      assertEquals(seen, [`${cloud}/regions`]);
      await expectOk(ctl(["api", "cloud", "get", "/regions", "--retries", "0"], {
        env: { HTTP_PROXY: `http://127.0.0.1:${proxy.addr.port}`, STORE_CLOUD_API_URL: cloud, NO_PROXY: "localhost" },
      }));
      assertEquals(seen.length, 1, "NO_PROXY bypasses the proxy");
    } finally {
      await proxy.shutdown();
    }
  },

  async "bash completion completes commands and arguments"(world) {
    const complete = await bashCompleter(world);
    assertEquals(await complete("pro"), ["profile"]);
    assertEquals(await complete("api", ""), ["cloud", "enterprise"]);
    assertEquals(await complete("api", "enterprise", "p"), ["post", "put", "patch"]);
  },

  async "zsh and fish completion scripts call back into ctl"({ ctl }) {
    for (const shell of ["zsh", "fish"]) {
      assertMatch((await expectOk(ctl(["completions", shell]))).stdout, /ctl __complete --/);
    }
  },

  async "a keyring reference that resolves to nothing names the profile and key"({ ctl, dir }) {
    const config = `${dir}/keyring.toml`;
    await Deno.writeTextFile(
      config,
      `[profiles.k]\ndeployment_type = "cloud"\napi_key = "k"\napi_secret = "keyring:storectl-test-missing"\napi_url = "${freePortUrl()}/v1"\n`,
    );
    await expectFail(
      ctl(["api", "cloud", "get", "/"], { env: { STORE_CONFIG_FILE: config } }),
      3,
      /profile 'k' key 'api_secret' refers to keyring entry 'storectl-test-missing'(, which does not exist|: The system keyring is not available)/,
    );
  },
};

/** A server that starts a large gzip download, sends 64 KiB and then nothing more. */
function stalledDownload(): { url: string; close(): Promise<void> } {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
    new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new Uint8Array(65536));
        },
      }),
      { headers: { "content-type": "application/x-gzip", "content-length": String(10 * 65536) } },
    ));
  return { url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

Object.assign(SCENARIOS, {
  async "every terminating signal removes the partial download and exits 128 + its number"({ spawn, dir }: World) {
    const server = stalledDownload();
    const env = {
      STORE_CONFIG_FILE: `${dir}/none.toml`,
      STORE_ENTERPRISE_URL: server.url,
      STORE_ENTERPRISE_USER: "u",
      STORE_ENTERPRISE_PASSWORD: "p",
    };
    const partials = () => [...Deno.readDirSync(dir)].filter((e) => /sig\.tgz/.test(e.name)).map((e) => e.name);
    try {
      for (const [signal, code] of [["SIGHUP", 129], ["SIGTERM", 143], ["SIGINT", 130]] as const) {
        const child = spawn(["api", "enterprise", "get", "/v1/debuginfo/all", "--file", "sig.tgz"], { env });
        for (let i = 0; i < 200 && partials().length === 0; i++) await new Promise((r) => setTimeout(r, 25));
        assertEquals(partials().length, 1, "the download had started");
        child.kill(signal);
        const out = await child.output();
        assertEquals(out.code, code, `${signal}: ${new TextDecoder().decode(out.stderr)}`);
        assertEquals(partials(), [], `${signal} left nothing behind`);
      }
    } finally {
      await server.close();
    }
  },

  async "20 profile set in parallel keep all 20 profiles"({ ctl, dir }: World) {
    const config = `${dir}/parallel.toml`;
    const runs = await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) =>
          ctl(["profile", "set", `p${i}`, "--deployment", "cloud", "--api-key", `key-${i}`], {
            env: { STORE_CONFIG_FILE: config },
          }),
      ),
    );
    for (const r of runs) assertEquals(r.code, 0, r.stderr);
    const names = JSON.parse(
      (await ctl(["profile", "list", "-q", "[].name"], { env: { STORE_CONFIG_FILE: config } })).stdout,
    );
    assertEquals(names.sort(), Array.from({ length: 20 }, (_, i) => `p${i}`).sort());
  },
});

Object.assign(SCENARIOS, {
  async "a reader that goes away (| head) ends ctl quietly"({ spawn }: World) {
    const child = spawn(["api", "enterprise", "get", "/v1/debuginfo/all"]);
    const reader = child.stdout.getReader();
    await reader.read(); // the download has started
    await reader.cancel(); // like `| head -c 100` exiting
    const [status, stderr] = await Promise.all([child.status, new Response(child.stderr).text()]);
    assertEquals([status.code, stderr], [0, ""]);
  },
});
