/**
 * End-to-end scenarios of `ctl enterprise support-package …` against the emulator over TLS,
 * added to `SCENARIOS` so that `ctl_deno_test.ts` and `ctl_node_test.ts` run them on Deno and on
 * the Node bundle. They use the enterprise profile `e` of the shared scenarios.
 *
 * @module
 */
import { unpackTar } from "modern-tar";
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { SCENARIOS, type World } from "./ctl_scenarios.ts";
import { atTerminal } from "../testing/terminal.ts";

type Result = { code: number; stdout: string; stderr: string };

function expectCode(r: Result, code: number): Result {
  assertEquals(r.code, code, `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

/** Queues a fault on the emulator's enterprise side, or clears them all (no body). */
async function fault({ emulator, caFile }: World, body?: Record<string, unknown>) {
  const client = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(caFile)] });
  try {
    const response = await fetch(`${emulator.enterpriseUrl}/__emulator/faults`, {
      method: body ? "POST" : "DELETE",
      body: body && JSON.stringify(body),
      client,
    });
    assertEquals(response.status, body ? 201 : 204, await response.text());
  } finally {
    client.close();
  }
}

/** The world with ctl's job state kept in the test directory, never in the user's home. */
function isolated(w: World): World {
  const state = { XDG_STATE_HOME: `${w.dir}/state` };
  return {
    ...w,
    ctl: (args, options = {}) => w.ctl(args, { ...options, env: { ...state, ...options.env } }),
    spawn: (args, options = {}) => w.spawn(args, { ...options, env: { ...state, ...options.env } }),
  };
}

function names(dir: string, pattern: RegExp): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => pattern.test(n)).sort();
}

Object.assign(SCENARIOS, {
  async "support-package cluster --optimize writes a smaller package and prints the JSON result"(w: World) {
    const { ctl, dir } = isolated(w);
    const r = expectCode(
      await ctl(["enterprise", "support-package", "cluster", "--optimize", "-o", "json", "--file", "sp/c.tar.gz"]),
      13, // sp/ does not exist: the pre-flight check refuses before any request
    );
    assertMatch(r.stderr, /sp/);
    await Deno.mkdir(`${dir}/sp`);
    const ok = expectCode(
      await ctl(["enterprise", "support-package", "cluster", "--optimize", "-o", "json", "--file", "sp/c.tar.gz"]),
      0,
    );
    const result = JSON.parse(ok.stdout);
    assertEquals([result.success, result.package_type, result.file_path], [true, "cluster", `${dir}/sp/c.tar.gz`]);
    assertEquals(result.file_size, (await Deno.stat(`${dir}/sp/c.tar.gz`)).size);
    assert(result.optimization.size_after < result.optimization.size_before, JSON.stringify(result.optimization));
    const entries = await unpackTar(
      (await Deno.open(`${dir}/sp/c.tar.gz`)).readable.pipeThrough(new DecompressionStream("gzip")),
    );
    assert(entries.some((e) => e.header.name === "cluster/cluster_info.json"));
    assertEquals(entries.filter((e) => e.header.name.endsWith(".gz")), []);
    assertMatch(ok.stderr, /Next steps:/);

    const optimized = expectCode(
      await ctl(["enterprise", "support-package", "optimize", "sp/c.tar.gz", "--log-lines", "5", "-o", "json"]),
      0,
    );
    assertEquals(JSON.parse(optimized.stdout).file_path, `${dir}/sp/c-optimized.tar.gz`);
  },

  async "support-package node: a dropped connection leaves no partial file and the old file as it was"(w: World) {
    const { ctl, dir } = isolated(w);
    await Deno.writeTextFile(`${dir}/node.tar.gz`, "old");
    await fault(w, { kind: "drop", afterBytes: 200, path: "/v1/debuginfo/node" });
    const r = expectCode(
      await ctl(["enterprise", "support-package", "node", "1", "-o", "node.tar.gz", "--yes", "--use-old-api"]),
      10,
    );
    assertMatch(r.stderr, /connection|broke/i);
    assertEquals(names(dir, /^(\.|)node\.tar\.gz/), ["node.tar.gz"]);
    assertEquals(await Deno.readTextFile(`${dir}/node.tar.gz`), "old");
  },

  async "support-package: --wait-timeout ends a stalled download with exit 11; SIGINT with 130"(w: World) {
    const { ctl, spawn, dir } = isolated(w);
    await fault(w, { kind: "stall", ms: 20_000, path: "/v1/debuginfo/all", count: 2 });
    const started = Date.now();
    const late = expectCode(
      await ctl(["enterprise", "support-package", "cluster", "--use-old-api", "--wait-timeout", "2"]),
      11,
    );
    assert(Date.now() - started < 15_000, "stopped near the limit");
    assertMatch(late.stderr, /not complete within 2 s \(--wait-timeout\)/);
    assertEquals(names(dir, /^support-package-cluster-|partial/), []);

    const child = spawn(["enterprise", "support-package", "database", "1", "--use-old-api"]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    child.kill("SIGINT");
    const out = await child.output();
    assertEquals(out.code, 130, new TextDecoder().decode(out.stderr));
    assertEquals(names(dir, /^support-package-database-|partial/), []);
    await fault(w);
  },

  async "support-package: a cluster slow to start sending gets --first-byte-timeout, a spinner says so; too slow is exit 11"(
    w: World,
  ) {
    const { ctl } = isolated(w);
    await fault(w, { kind: "stall", ms: 2_000, path: "/v1/debuginfo/all" });
    const args = ["enterprise", "support-package", "cluster", "--use-old-api", "--yes", "--timeout", "1"];
    const shown = await atTerminal(w, [...args, "-o", "slow.tar.gz"], { columns: 100 });
    assertEquals(shown.code, 0, shown.shown);
    const waiting = shown.shown.search(/Support package: waiting for the cluster to start sending… \(\d+ s\)/);
    assert(waiting >= 0 && waiting < shown.shown.indexOf("Downloading"), shown.shown);
    await fault(w, { kind: "stall", ms: 20_000, path: "/v1/debuginfo/all" });
    const late = expectCode(await ctl([...args, "--first-byte-timeout", "1", "-o", "late.tar.gz"]), 11);
    assertMatch(late.stderr, /\/v1\/debuginfo\/all sent nothing within 1 s of being asked\n/);
    assertMatch(
      late.stderr,
      /tip: A cluster builds the package before it sends it: give it longer with --first-byte-timeout/,
    );
    await fault(w);
  },

  async "support-package: Ctrl+C at the overwrite question ends the line, says Interrupted, exits 130, changes nothing"(
    w: World,
  ) {
    const { ctl, dir } = isolated(w);
    await Deno.writeTextFile(`${dir}/keep.tar.gz`, "old");
    const r = await atTerminal(w, ["enterprise", "support-package", "cluster", "-o", "keep.tar.gz"], {
      prompt: "[y/N] ",
      keys: "\x03",
    });
    assertEquals(r.code, 130, r.shown);
    assertMatch(r.shown, /keep\.tar\.gz exists \(3 B\)\. Overwrite it\? \[y\/N\] \^C\nInterrupted \(SIGINT\)\n$/);
    assertEquals(await Deno.readTextFile(`${dir}/keep.tar.gz`), "old");
    assertEquals(names(dir, /partial/), []);
    // It never started: no job is recorded.
    const list = expectCode(await ctl(["enterprise", "support-package", "list", "-o", "json"]), 0);
    assertEquals(
      JSON.parse(list.stdout).filter((j: { file_path?: string }) => j.file_path?.endsWith("keep.tar.gz")),
      [],
    );
  },

  async "support-package --upload --no-save streams to the file-transfer service, sending a failed part again"(
    w: World,
  ) {
    const { ctl, emulator, dir } = isolated(w);
    const origin = emulator.cloudUrl.replace(/\/v1$/, "");
    const env = { STORE_FILES_API_URL: `${origin}/files/api/rest/v1`, STORE_FILES_PART_SIZE: "32768" };
    expectCode(await ctl(["files-key", "set", "-"], { stdin: "demo-files-key\n" }), 0);
    const key = JSON.parse(expectCode(await ctl(["files-key", "get", "-o", "json"]), 0).stdout);
    assertEquals(key, { key: "****", source: "global files_api_key" }); // short keys are masked whole
    const queued = await fetch(`${origin}/__emulator/faults`, {
      method: "POST",
      body: JSON.stringify({ kind: "status", status: 500, count: 1, path: "/files/upload/" }),
    });
    assertEquals(queued.status, 201, await queued.text());
    const r = expectCode(
      await ctl(["enterprise", "support-package", "cluster", "--upload", "--no-save", "-o", "json"], { env }),
      0,
    );
    assertMatch(r.stderr, /^--no-save: /);
    assertMatch(r.stderr, /Part 1 failed .*HTTP 500.*; sending it again \(attempt 2\)/);
    const result = JSON.parse(r.stdout);
    assertEquals([result.success, result.file_path], [true, undefined]);
    assertEquals(names(dir, /^support-package-cluster-/), []);
    const listed = await fetch(`${origin}/files/api/rest/v1/folders/support-uploads`, {
      headers: { "x-filesapi-key": "demo-files-key" },
    });
    const stored = (await listed.json()).find((f: { path: string }) => f.path === result.upload.remote_path);
    assertEquals([stored?.size, stored?.sha256], [result.upload.size, result.upload.sha256]);
    assert(result.upload.parts > 1, "several parts");
    expectCode(await ctl(["files-key", "remove"]), 0);
  },

  async "support-package --no-wait runs in a detached process; status follows it to completed; list knows it"(
    w: World,
  ) {
    const { ctl, dir } = isolated(w);
    const started = JSON.parse(
      expectCode(
        await ctl(["enterprise", "support-package", "node", "2", "--no-wait", "-o", "json", "--file", "bg.tgz"]),
        0,
      )
        .stdout,
    );
    assertMatch(started.task_id, /^sp-\d{8}T\d{6}-[0-9a-f]{4}$/);
    assertEquals(started.status_command, `ctl enterprise support-package status ${started.task_id}`);
    let job = { status: "in_progress", progress: 0, result: { file_size: 0 } };
    for (let i = 0; i < 120 && job.status === "in_progress"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      job = JSON.parse(
        expectCode(await ctl(["enterprise", "support-package", "status", started.task_id, "-o", "json"]), 0).stdout,
      );
    }
    assertEquals([job.status, job.progress], ["completed", 100], JSON.stringify(job));
    assertEquals(job.result.file_size, (await Deno.stat(`${dir}/bg.tgz`)).size);
    const list = JSON.parse(expectCode(await ctl(["enterprise", "support-package", "list", "-o", "json"]), 0).stdout);
    assert(list.some((j: { task_id: string }) => j.task_id === started.task_id));
  },
});
