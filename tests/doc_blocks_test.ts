import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { DENO_CTL } from "../testing/ctl_process.ts";
import { startEmulator } from "../testing/emulator_process.ts";
import { DENO_SERVER, startServer } from "../testing/server_process.ts";
import { keyValues } from "../testing/table_text.ts";
import { missingTools, userEnv } from "../testing/tools.ts";
import { docCommands } from "../testing/doc_blocks.ts";
import { startReceiver } from "../testing/webhook_receiver.ts";
import { until } from "../testing/until.ts";

const ROOT = new URL("..", import.meta.url);

Deno.test("README: .ci/run runs exactly the README's test line", async () => {
  const ci = await Deno.readTextFile(new URL(".ci/run", ROOT));
  assertEquals([ci.trim().split("\n").at(-1)], await docCommands("test"));
});

/** Where the documents' servers listen: the emulator's cloud and enterprise APIs, the service. */
interface Hosts {
  readonly cloud?: string;
  readonly enterprise?: string;
  readonly service?: string;
  /** A webhook receiver (the documents' 127.0.0.1:9000). */
  readonly receiver?: string;
}

/** Runs `line` in a shell in `dir`, with `ctl` on PATH and the test's servers in place of the documents' addresses. */
async function sh(line: string, dir: string, hosts: Hosts) {
  const command = line.replaceAll("127.0.0.1:8081", hosts.cloud ?? "127.0.0.1:8081")
    .replaceAll("127.0.0.1:9443", hosts.enterprise ?? "127.0.0.1:9443")
    .replaceAll("127.0.0.1:8080", hosts.service ?? "127.0.0.1:8080")
    .replaceAll("127.0.0.1:9000", hosts.receiver ?? "127.0.0.1:9000");
  const out = await new Deno.Command("sh", {
    args: ["-c", command],
    cwd: dir,
    env: {
      ...userEnv(),
      PATH: `${dir}/bin:${Deno.env.get("PATH")}`,
      STORE_CONFIG_FILE: `${dir}/config.toml`,
      XDG_STATE_HOME: `${dir}/state`, // ctl's job state stays out of the user's home
    },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

async function withDir(fn: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "readme-" });
  try {
    await Deno.mkdir(`${dir}/bin`);
    await Deno.writeTextFile(`${dir}/bin/ctl`, `#!/bin/sh\nexec ${DENO_CTL.map((a) => `'${a}'`).join(" ")} "$@"\n`, {
      mode: 0o755,
    });
    await fn(dir);
    await assertIgnored(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * What the documents' examples leave where they run is in `.gitignore`, so that running them in
 * the checkout leaves it clean (and `npm run check`, which skips ignored files, green).
 */
async function assertIgnored(dir: string) {
  const harness = ["bin", "config.toml", "state", "examples"]; // the test's own, not the examples'
  for await (const entry of Deno.readDir(dir)) {
    if (harness.includes(entry.name)) continue;
    const check = await new Deno.Command("git", {
      args: ["-C", ROOT.pathname, "check-ignore", "-q", "--no-index", entry.name],
    }).output();
    assertEquals(check.code, 0, `the documents' examples write ${entry.name} where they run: add it to .gitignore`);
  }
}

const host = (url: string) => new URL(url).host;

Deno.test("README: every ctl command of the try-it block runs against the emulator as written", async () => {
  await using emulator = await startEmulator(["--tls", "--task-delay-ms", "300"]);
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/emulator-ca.pem`, emulator.caCert!);
    const ports = { cloud: host(emulator.cloudUrl), enterprise: host(emulator.enterpriseUrl) };
    const commands = await docCommands("ctl");
    assert(commands.length >= 8);
    // The walk-through changes only what it made: the pre-seeded databases are as they were.
    const seeded = () =>
      fetch(`${emulator.cloudUrl}/subscriptions/156400/databases`, {
        headers: { "x-api-key": "demo-key", "x-api-secret-key": "demo-secret" },
      }).then((r) => r.json());
    const before = await seeded();
    for (const line of commands) {
      const r = await sh(line, dir, ports);
      assertEquals(r.code, 0, `${line}\n${r.stderr}`);
    }
    const bytes = await Deno.readFile(`${dir}/debuginfo.tar.gz`);
    assertEquals([bytes[0], bytes[1]], [0x1f, 0x8b]);
    const databases = (list: { subscription: { databases: { databaseId: number }[] }[] }) =>
      list.subscription.flatMap((s) => s.databases);
    const after = new Map(databases(await seeded()).map((d) => [d.databaseId, d]));
    for (const database of databases(before)) assertEquals(after.get(database.databaseId), database);
    assert(!after.has(Number(await Deno.readTextFile(`${dir}/db-id`))), "the database it made is deleted");
  });
});

Deno.test("docs/ctl.md: the support-package block runs against the emulator as written", async () => {
  await using emulator = await startEmulator(["--tls", "--debuginfo-mb", "2"]);
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/emulator-ca.pem`, emulator.caCert!);
    const ports = { cloud: host(emulator.cloudUrl), enterprise: host(emulator.enterpriseUrl) };
    for (const line of await docCommands("support-package")) {
      const r = await sh(line, dir, ports);
      assertEquals(r.code, 0, `${line}\n${r.stderr}`);
      if (line.includes("--optimize-verbose")) assertMatch(r.stderr, /truncated .*\.log: kept the last 200 of/);
      if (line.includes(" list ")) assertMatch(r.stdout, /completed/);
    }
    const names = (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name);
    for (const name of ["db1.tar.gz", "db1-optimized.tar.gz", "result.json"]) assert(names.includes(name), name);
    assert(names.some((n) => /^support-package-cluster-\d{8}T\d{6}\.tar\.gz$/.test(n)), names.join(" "));
    assertEquals(JSON.parse(await Deno.readTextFile(`${dir}/result.json`)).package_type, "nodes");
  });
});

Deno.test("docs/emulator.md: the curl examples run as written", { ignore: missingTools("curl") }, async () => {
  await using emulator = await startEmulator();
  await withDir(async (dir) => {
    const ports = { cloud: host(emulator.cloudUrl), enterprise: host(emulator.enterpriseUrl) };
    const [subscriptions, bdbs, download] = await Promise.all(
      (await docCommands("curl")).map((line) => sh(line, dir, ports)),
    );
    assertMatch(subscriptions.stdout, /"subscriptions":/);
    assertMatch(bdbs.stdout, /"memory_size":/);
    assertEquals(download.code, 0);
    assert((await Deno.stat(`${dir}/debuginfo.tar.gz`)).size > 1000);
  });
});

Deno.test("docs/ctl.md: every command of the enterprise block runs against the emulator as written", async () => {
  await using emulator = await startEmulator(["--tls", "--task-delay-ms", "300"]);
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/emulator-ca.pem`, emulator.caCert!);
    const ports = { cloud: host(emulator.cloudUrl), enterprise: host(emulator.enterpriseUrl) };
    const commands = await docCommands("ctl-enterprise");
    assert(commands.length >= 8);
    const outputs = [];
    for (const line of commands) {
      const r = await sh(line, dir, ports);
      assertEquals(r.code, 0, `${line}\n${r.stderr}`);
      outputs.push(r.stdout);
    }
    const db = keyValues(outputs[3]);
    assertEquals([db.UID, db.NAME, db.MEMORY], ["5", "cache", "1 GiB"]);
    assertMatch(db.STATUS, /^(pending|active)$/);
    assertEquals(outputs[4], "1500000000\n");
  });
});

Deno.test("docs/ctl.md: the cloud block runs against the emulator as written", async () => {
  await using emulator = await startEmulator(["--task-delay-ms", "300"]);
  await withDir(async (dir) => {
    await Deno.symlink(new URL("examples", ROOT).pathname, `${dir}/examples`);
    const hosts = { cloud: host(emulator.cloudUrl) };
    const [profile] = await docCommands("ctl"); // the tour's demo-cloud profile
    const outputs = [];
    for (const line of [profile, ...await docCommands("ctl-cloud")]) {
      const r = await sh(line, dir, hosts);
      assertEquals(r.code, 0, `${line}\n${r.stderr}`);
      outputs.push(r.stdout);
    }
    assertMatch(outputs.at(-1)!, /^- |^\[\]/m, "peering list -o yaml");
    const gone = await fetch(`${emulator.cloudUrl}/subscriptions/156400/databases/51`, {
      headers: { "x-api-key": "demo-key", "x-api-secret-key": "demo-secret" },
    });
    await gone.body?.cancel();
    assertEquals(gone.status, 404, "database 51 is deleted");
  });
});

Deno.test(
  "README: the service tour runs against a server as written",
  { ignore: missingTools("curl", "jq") },
  async () => {
    await using server = await startServer(DENO_SERVER, { LOG_LEVEL: "warn" });
    await withDir(async (dir) => {
      const outputs = [];
      for (const line of await docCommands("service")) {
        const r = await sh(line, dir, { service: host(server.url) });
        assertEquals(r.code, 0, `${line}\n${r.stderr}`);
        outputs.push(r.stdout);
      }
      const [, , , answer, roots] = outputs;
      assertMatch(answer, /event: token\n/);
      assertMatch(answer, /event: done\ndata: .*"answer":"A backup keeps thirty days of snapshots\. \[1\]"/);
      assertEquals(roots.trim().split("\n"), [
        '{"kind":"answer","status":"done"}',
        '{"kind":"pipeline_run","status":"done"}',
      ]);
    });
  },
);

Deno.test("docs/a2a.md: the A2A walk-through runs against a server as written", {
  ignore: missingTools("curl", "jq"),
}, async () => {
  await using server = await startServer(DENO_SERVER, { LOG_LEVEL: "warn" });
  await withDir(async (dir) => {
    const outputs: string[] = [];
    for (const line of await docCommands("a2a")) {
      const r = await sh(line, dir, { service: host(server.url) });
      assertEquals(r.code, 0, `${line}\n${r.stderr}`);
      outputs.push(r.stdout);
    }
    const [card, state, stream] = outputs;
    assertMatch(card, /"demo".*"answer".*,true\]/);
    assertEquals(state.trim(), '"TASK_STATE_COMPLETED"');
    const data = [...stream.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]));
    assertEquals(Object.keys(data[0]), ["task"]);
    const chunks = data.filter((d) => d.artifactUpdate?.artifact.artifactId === "output");
    assertEquals(chunks.map((d) => d.artifactUpdate.artifact.parts[0].text).join(""), "streamed words");
    assertEquals(data.at(-1).statusUpdate.status.state, "TASK_STATE_COMPLETED");
  });
});

Deno.test("docs/webhooks.md: the walk-through runs against a server and a receiver as written", {
  ignore: missingTools("curl", "jq"),
}, async () => {
  await using receiver = startReceiver();
  await using server = await startServer(DENO_SERVER, {
    LOG_LEVEL: "warn",
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOW_HOSTS: "127.0.0.1",
  });
  await withDir(async (dir) => {
    const [subscribe, submit, deliveries] = await docCommands("webhooks");
    const run = async (line: string) => {
      const r = await sh(line, dir, { service: host(server.url), receiver: host(receiver.url) });
      assertEquals(r.code, 0, `${line}\n${r.stderr}`);
      return r.stdout;
    };
    await run(subscribe);
    assertEquals((await run(submit)).trim(), "in_progress");
    await until("the receiver gets the delivery", () => receiver.received.length === 1);
    assertEquals(JSON.parse(receiver.received[0].body).type, "task.done");
    await until("the delivery is recorded", async () => (await run(deliveries)).includes("delivered"));
    assertEquals((await run(deliveries)).trim(), '{"event":"done","state":"delivered"}');
  });
});
