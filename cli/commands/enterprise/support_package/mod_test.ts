import { unpackTar } from "modern-tar";
import { assert, assertEquals, assertMatch } from "../../../../testing/assert.ts";
import { EMULATOR_ENV, ENTERPRISE_URL, type InProcessCtl, inProcessCtl } from "../../../../testing/ctl_in_process.ts";
import { Interrupted } from "../../../context.ts";

const env = EMULATOR_ENV;
const NAME = /^support-package-cluster-\d{8}T\d{6}\.tar\.gz$/;

/** The files in the test directory, without the config. */
async function files(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.filter((n) => n !== "config.toml" && n !== ".local").sort(); // .local: the job state
}

async function entryNames(path: string): Promise<string[]> {
  const entries = await unpackTar((await Deno.open(path)).readable.pipeThrough(new DecompressionStream("gzip")));
  return entries.map((e) => e.header.name);
}

function fault(ctl: InProcessCtl, body: Record<string, unknown>) {
  return ctl.emulator.enterprise.fetch(
    new Request(`${ENTERPRISE_URL}/__emulator/faults`, { method: "POST", body: JSON.stringify(body) }),
  );
}

Deno.test("support-package cluster: old routes below 7.4, the specification's default name, the JSON result", async () => {
  await using ctl = await inProcessCtl({ softwareVersion: "7.2.4" });
  const before = Date.now();
  const r = await ctl(["enterprise", "support-package", "cluster", "-o", "json"], { env });
  assertEquals([r.code, r.requests], [0, ["GET /v1/cluster", "GET /v1/nodes", "GET /v1/debuginfo/all"]], r.stderr);
  const [name] = await files(ctl.dir);
  assertMatch(name, NAME);
  const result = JSON.parse(r.stdout);
  const size = (await Deno.stat(`${ctl.dir}/${name}`)).size;
  assertEquals(Object.keys(result), [
    "success",
    "package_type",
    "file_path",
    "file_size",
    "file_size_display",
    "elapsed_seconds",
    "cluster_name",
    "cluster_version",
    "message",
    "timestamp",
    "endpoint",
  ]);
  assertEquals(
    [result.success, result.package_type, result.file_path, result.file_size],
    [true, "cluster", `${ctl.dir}/${name}`, size],
  );
  assert(Number.isInteger(result.elapsed_seconds) && result.elapsed_seconds <= (Date.now() - before) / 1000 + 1);
  assertEquals([result.cluster_name, result.cluster_version], ["cluster.example.local", "7.2.4"]);
  assertMatch(result.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  // The name's timestamp is the start, in UTC.
  const stamp = name.match(/(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)/)!.slice(1).map(Number);
  const named = Date.UTC(stamp[0], stamp[1] - 1, stamp[2], stamp[3], stamp[4], stamp[5]);
  assert(named >= Math.floor(before / 1000) * 1000 && named <= Date.now(), `${name} at ${before}`);
  assert((await entryNames(`${ctl.dir}/${name}`)).includes("cluster/cluster_info.json"));
  const path = `${ctl.dir}/${name}`;
  assertEquals(
    r.stderr,
    `Next steps:\n  1. Upload ${path} to https://support.example.com/upload (or run again with --upload)\n` +
      `  2. Quote your support case number with the upload\n  3. Delete ${path} once support has it\n`,
  );
});

Deno.test("support-package: each package type on both route families, by version or by flag", async () => {
  const cases: [string[], string, string][] = [
    [["cluster"], "/v1/debuginfo/all", "/v1/cluster/debuginfo"],
    [["database", "2"], "/v1/debuginfo/all/bdb/2", "/v1/bdbs/2/debuginfo"],
    [["node", "3"], "/v1/debuginfo/node/3", "/v1/nodes/3/debuginfo"],
    [["node"], "/v1/debuginfo/node", "/v1/nodes/debuginfo"],
  ];
  await using old = await inProcessCtl({ softwareVersion: "7.2.4" });
  await using current = await inProcessCtl({ softwareVersion: "7.4.2" });
  for (const [args, oldPath, newPath] of cases) {
    // --yes: two runs within a second write the same default name.
    const a = await old(["enterprise", "support-package", ...args, "-o", "json", "--yes"], { env });
    assertEquals([a.code, a.requests.at(-1)], [0, `GET ${oldPath}`], a.stderr);
    const b = await current(["enterprise", "support-package", ...args, "-o", "json", "--yes"], { env });
    assertEquals([b.code, b.requests.at(-1)], [0, `GET ${newPath}`], b.stderr);
    assertMatch(b.stderr, /The cluster runs 7\.4\.2: using the new debuginfo endpoints/);
    const forcedOld = await current(["enterprise", "support-package", ...args, "--use-old-api", "-o", "json", "-y"], {
      env,
    });
    assertEquals(forcedOld.requests.at(-1), `GET ${oldPath}`);
    // Forced onto routes a 7.2 cluster lacks: its 404 sends the command to the other family once.
    const forcedNew = await old(["enterprise", "support-package", ...args, "--use-new-api", "-o", "json", "-y"], {
      env,
    });
    assertEquals([forcedNew.code, forcedNew.requests.slice(2)], [0, [`GET ${newPath}`, `GET ${oldPath}`]]);
    assertMatch(forcedNew.stderr, new RegExp(`GET ${newPath} answered 404; trying GET ${oldPath}`));
    const type = args[0] === "node" && args.length === 1 ? "nodes" : args[0];
    assertEquals(JSON.parse(forcedNew.stdout).package_type, type);
  }
  const names = await files(old.dir);
  for (const pattern of [NAME, /^support-package-database-2-\d{8}T\d{6}\.tar\.gz$/, /^support-package-node-3-/]) {
    assert(names.some((n) => pattern.test(n)), `${pattern} in ${names}`);
  }
  assert(names.some((n) => /^support-package-nodes-\d{8}T\d{6}\.tar\.gz$/.test(n)));
});

Deno.test("support-package: an unknown uid is not found on both families; JSON says success false", async () => {
  await using ctl = await inProcessCtl({ softwareVersion: "7.4.2" });
  const r = await ctl(["enterprise", "support-package", "database", "9", "-o", "json"], { env });
  assertEquals([r.code, r.requests.slice(2)], [5, ["GET /v1/bdbs/9/debuginfo", "GET /v1/debuginfo/all/bdb/9"]]);
  const result = JSON.parse(r.stdout);
  assertEquals([result.success, result.package_type, result.cluster_version], [false, "database", "7.4.2"]);
  assertMatch(result.error, /database '9' does not exist/);
  assertEquals(await files(ctl.dir), []);
  const bad = await ctl(["enterprise", "support-package", "database", "x"], { env });
  assertEquals([bad.code, bad.requests], [2, []]);
  const both = await ctl(["enterprise", "support-package", "cluster", "--use-new-api", "--use-old-api"], { env });
  assertEquals([both.code, both.requests], [2, []]);
});

Deno.test("support-package: an existing file is replaced only when the user agrees", async () => {
  await using ctl = await inProcessCtl();
  const target = `${ctl.dir}/pkg.tar.gz`;
  await Deno.writeTextFile(target, "keep me");
  const args = ["enterprise", "support-package", "cluster", "-o", "pkg.tar.gz"];
  const piped = await ctl(args, { env });
  assertEquals([piped.code, piped.requests], [2, []]);
  assertMatch(piped.stderr, /pkg\.tar\.gz exists \(7 B\)\. Overwrite it: confirm with --yes/);
  const no = await ctl(args, { env, tty: { stdin: true }, answers: [false] });
  assertEquals([no.code, no.requests], [12, []]);
  assertEquals(await Deno.readTextFile(target), "keep me");
  assertEquals(ctl.questions, [`${target} exists (7 B). Overwrite it?`]);
  const yes = await ctl(args, { env, tty: { stdin: true }, answers: [true] });
  assertEquals(yes.code, 0, yes.stderr);
  assert((await Deno.stat(target)).size > 1000);
  await Deno.writeTextFile(target, "keep me");
  assertEquals((await ctl([...args, "--yes"], { env })).code, 0);
  assert((await Deno.stat(target)).size > 1000);
  await Deno.writeTextFile(target, "keep me");
  const skipped = await ctl([...args, "--skip-checks"], { env });
  assertEquals([skipped.code, ctl.questions.length], [0, 2]);
  assert((await Deno.stat(target)).size > 1000);
  assertEquals(await files(ctl.dir), ["pkg.tar.gz"]);
});

Deno.test("support-package: under 1 GiB free warns and asks; a directory that takes no file fails first", async () => {
  await using ctl = await inProcessCtl();
  // 1 GB (the specification's threshold) is less than 1 GiB: anything under 1 GiB asks.
  const full = { freeSpace: () => Promise.resolve(1_050_000_000) };
  const args = ["enterprise", "support-package", "cluster"];
  const piped = await ctl(args, { env, fs: full });
  assertEquals([piped.code, piped.requests], [2, []]);
  assertMatch(piped.stderr, /Warning: only 1001 MiB free in .*; a support package is typically 500 MiB to 2 GiB/);
  assertMatch(piped.stderr, /Continue with less than 1 GiB free: confirm with --yes/);
  const no = await ctl(args, { env, fs: full, tty: { stdin: true }, answers: [false] });
  assertEquals([no.code, no.requests], [12, []]);
  const yes = await ctl(args, { env, fs: full, tty: { stdin: true }, answers: [true] });
  assertEquals(yes.code, 0, yes.stderr);
  const skipped = await ctl([...args, "--skip-checks"], { env, fs: full });
  assertEquals([skipped.code, /Warning/.test(skipped.stderr)], [0, false]);

  await Deno.writeTextFile(`${ctl.dir}/not-a-dir`, "");
  const blocked = await ctl([...args, "-o", "not-a-dir/pkg.tar.gz"], { env });
  assertEquals([blocked.code, blocked.requests], [13, []]);
  assertMatch(blocked.stderr, /not-a-dir/);
});

Deno.test("support-package: a dropped connection fails, leaving no partial file and the old file untouched", async () => {
  await using ctl = await inProcessCtl({ debuginfoMb: 4 });
  await Deno.writeTextFile(`${ctl.dir}/pkg.tar.gz`, "old");
  await fault(ctl, { kind: "drop", afterBytes: 100_000, path: "/v1/debuginfo" });
  const r = await ctl(["enterprise", "support-package", "cluster", "-o", "pkg.tar.gz", "--yes"], { env });
  assertEquals(r.code, 10, r.stderr);
  assertMatch(r.stderr, /ended after 100000 of 100001 bytes: the connection broke/);
  assertEquals(await files(ctl.dir), ["pkg.tar.gz"]);
  assertEquals(await Deno.readTextFile(`${ctl.dir}/pkg.tar.gz`), "old");
});

Deno.test("support-package: --wait-timeout bounds the whole operation (exit 11)", async () => {
  await using ctl = await inProcessCtl();
  await fault(ctl, { kind: "stall", ms: 30_000, path: "/v1/debuginfo" });
  const started = Date.now();
  const r = await ctl(["enterprise", "support-package", "cluster", "--wait-timeout", "1", "-o", "json"], { env });
  assertEquals(r.code, 11, r.stderr);
  assert(Date.now() - started < 5000, "stopped at the limit");
  assertMatch(r.stderr, /not complete within 1 s \(--wait-timeout\); nothing was saved/);
  assertEquals(JSON.parse(r.stdout).success, false);
  assertEquals(await files(ctl.dir), []);
});

Deno.test("support-package: Ctrl+C stops the download and leaves nothing behind", async () => {
  await using ctl = await inProcessCtl();
  await fault(ctl, { kind: "stall", ms: 30_000, path: "/v1/debuginfo" });
  const interrupt = new AbortController();
  setTimeout(() => interrupt.abort(new Interrupted({ name: "SIGINT", number: 2 })), 200);
  const r = await ctl(["enterprise", "support-package", "cluster"], { env, interrupt: interrupt.signal });
  assertEquals(r.code, 130, r.stderr);
  assertEquals(await files(ctl.dir), []);
});

Deno.test("support-package --optimize shrinks while downloading; --optimize-verbose lists each action", async () => {
  await using ctl = await inProcessCtl({ debuginfoMb: 2 });
  const r = await ctl(["enterprise", "support-package", "node", "1", "--optimize-verbose", "--log-lines", "50"], {
    env,
    tty: { stdout: true },
  });
  assertEquals(r.code, 0, r.stderr);
  assertEquals(r.stdout, "");
  assertMatch(r.stderr, / {2}removed {3}node_1\/logs\/redis\.log\.1\.gz: nested archive\n/);
  // Sizes in IEC units, like every other size ctl prints.
  const size = String.raw`\d+(\.\d)? (B|KiB|MiB|GiB)`;
  assertMatch(
    r.stderr,
    new RegExp(
      String.raw` {2}truncated node_1/logs/dmcproxy\.log: kept the last 50 of \d+ lines \(${size} → ${size}\)\n`,
    ),
  );
  assert(!/\d bytes\)/.test(r.stderr), r.stderr);
  assertMatch(r.stderr, / {2}removed {3}node_1\/logs\/cnm_http\.log\.1: rotated copy of node_1\/logs\/cnm_http\.log/);
  assertMatch(r.stderr, /Saved the node support package of cluster\.example\.local to .* in \d+ s\n/);
  assertMatch(r.stderr, /Optimized: .* → .* \([\d.]+% smaller\); files processed \d+, truncated \d+, removed \d+\n/);
  const [name] = await files(ctl.dir);
  const entries = await entryNames(`${ctl.dir}/${name}`);
  assertEquals(entries.filter((e) => e.endsWith(".gz") || e.endsWith(".log.1")), []);
  const json = await ctl(["enterprise", "support-package", "cluster", "--optimize", "-o", "json"], { env });
  const o = JSON.parse(json.stdout).optimization;
  assertEquals(Object.keys(o), [
    "size_before",
    "size_after",
    "reduction_percent",
    "files_processed",
    "files_truncated",
    "files_removed",
    "entries_rejected",
  ]);
  assert(o.size_after < o.size_before && o.files_truncated > 0 && o.files_removed > 0, JSON.stringify(o));
  assertEquals(JSON.parse(json.stdout).file_size, o.size_after);
});

Deno.test("support-package shows progress on a terminal only", async () => {
  await using ctl = await inProcessCtl();
  const tty = await ctl(["enterprise", "support-package", "cluster"], { env, tty: { stdout: true, stderr: true } });
  // deno-lint-ignore no-control-regex
  const line = /\r\x1b\[K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Downloading support-package-cluster-\d+T\d+\.tar\.gz: [\d.]+ (B|KiB), /;
  assertMatch(tty.stderr, line);
  // One convention (IEC) in every size: the bytes, the rate, the result line.
  assertMatch(tty.stderr, /, [\d.]+ (B|KiB|MiB|GiB)\/s/);
  assertMatch(tty.stderr, /Saved the cluster support package of [\s\S]* \([\d.]+ KiB\) in \d+ s\n/); // wrapped at the width
  assert(!/\d (kB|MB|GB)\b/.test(tty.stderr), tty.stderr);
  const piped = await ctl(["enterprise", "support-package", "cluster"], { env });
  assert(!piped.stderr.includes("Downloading"), piped.stderr);
});

Deno.test("support-package optimize <file>: writes <name>-optimized.tar.gz beside it, with the statistics", async () => {
  await using ctl = await inProcessCtl({ debuginfoMb: 2 });
  assertEquals((await ctl(["enterprise", "support-package", "cluster", "-o", "pkg.tar.gz"], { env })).code, 0);
  const r = await ctl(["enterprise", "support-package", "optimize", "pkg.tar.gz", "-o", "json"], { env });
  assertEquals([r.code, r.requests], [0, []], r.stderr);
  const result = JSON.parse(r.stdout);
  assertEquals(result.file_path, `${ctl.dir}/pkg-optimized.tar.gz`);
  assertEquals(result.source_path, `${ctl.dir}/pkg.tar.gz`);
  assertEquals(result.optimization.size_before, (await Deno.stat(`${ctl.dir}/pkg.tar.gz`)).size);
  assertEquals(result.file_size, (await Deno.stat(`${ctl.dir}/pkg-optimized.tar.gz`)).size);
  const again = await ctl(["enterprise", "support-package", "optimize", "pkg.tar.gz"], { env });
  assertEquals([again.code], [2]); // the output exists: --yes needed
  const human = await ctl(["enterprise", "support-package", "optimize", "pkg.tar.gz", "--file", "s.tgz"], {
    env,
    tty: { stdout: true },
  });
  assertMatch(human.stderr, /^Saved .*s\.tgz \(.*\)\nOptimized: /);
  const missing = await ctl(["enterprise", "support-package", "optimize", "nope.tar.gz", "-o", "json"], { env });
  assertEquals(missing.code, 13);
  assertMatch(missing.stderr, /nope\.tar\.gz/);
  await Deno.writeTextFile(`${ctl.dir}/bad.tar.gz`, "not gzip at all");
  const bad = await ctl(["enterprise", "support-package", "optimize", "bad.tar.gz"], { env });
  assert(bad.code !== 0, bad.stderr);
  assertEquals((await files(ctl.dir)).filter((n) => n.startsWith("bad")), ["bad.tar.gz"]);
});

Deno.test("support-package progress shows a bar with percent and time left when the size is known", async () => {
  await using ctl = await inProcessCtl();
  await Deno.writeTextFile(`${ctl.dir}/pkg.tar.gz`, "x".repeat(300_000));
  const r = await ctl(["enterprise", "support-package", "optimize", "pkg.tar.gz"], { env, tty: { stderr: true } });
  assert(r.code !== 0); // not a package; the progress still showed while it was read
  assertMatch(r.stderr, /\[█*░*\] Optimizing pkg\.tar\.gz: [\d.]+ KiB of 293 KiB \(\d+%\)/);
});

Deno.test("support-package --help says what --file writes", async () => {
  await using ctl = await inProcessCtl();
  const help = await ctl(["enterprise", "support-package", "cluster", "--help"], {
    tty: { stdout: true },
    columns: 200,
  });
  assertMatch(help.stdout, /--file\]\s+the package file, also -o <path> \(default: support-package-<type>-<UTC time>/);
  const optimize = await ctl(["enterprise", "support-package", "optimize", "--help"], {
    tty: { stdout: true },
    columns: 200,
  });
  assertMatch(optimize.stdout, /--file\]\s+the optimized package/);
});

Deno.test("support-package: names, timestamps and job times come from the command's clock", async () => {
  await using ctl = await inProcessCtl();
  const now = () => Date.UTC(2026, 0, 31, 8, 5, 9);
  const state = { ...env, XDG_STATE_HOME: `${ctl.dir}/state` };
  const r = await ctl(["enterprise", "support-package", "cluster", "-o", "json"], { env: state, now });
  assertEquals(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  assertEquals([result.file_path.split("/").at(-1), result.timestamp, result.elapsed_seconds], [
    "support-package-cluster-20260131T080509.tar.gz",
    "2026-01-31T08:05:09Z",
    0,
  ]);
  const [job] = JSON.parse(
    (await ctl(["enterprise", "support-package", "list", "-o", "json"], { env: state, now })).stdout,
  );
  assertEquals([job.task_id.startsWith("sp-20260131T080509-"), job.started, job.updated], [
    true,
    "2026-01-31T08:05:09Z",
    "2026-01-31T08:05:09Z",
  ]);
});

Deno.test("support-package: the cluster may take --first-byte-timeout to start sending, and a spinner says so; --timeout bounds later silences", async () => {
  await using ctl = await inProcessCtl();
  const argv = ["enterprise", "support-package", "cluster", "--use-old-api", "--yes"];
  await fault(ctl, { kind: "stall", ms: 1500, path: "/v1/debuginfo/all" });
  const patient = await ctl([...argv, "--timeout", "0.5"], { env, tty: { stderr: true } });
  assertEquals(patient.code, 0, patient.stderr);
  const waiting = patient.stderr.search(
    /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Support package: waiting for the cluster to start sending… \(\d+ s\)/,
  );
  assert(waiting >= 0, patient.stderr);
  assert(waiting < patient.stderr.indexOf("Downloading"), "the spinner shows until the first byte");

  await fault(ctl, { kind: "stall", ms: 2500, path: "/v1/debuginfo/all" });
  const late = await ctl([...argv, "--first-byte-timeout", "1", "--timeout", "0.5"], { env });
  assertEquals(late.code, 11, late.stderr);
  assertEquals(
    late.stderr,
    "Error: https://cluster.test:9443/v1/debuginfo/all sent nothing within 1 s of being asked\n" +
      "  tip: A cluster builds the package before it sends it: give it longer with --first-byte-timeout <seconds>\n",
  );
  // Never less than --timeout: the first byte gets at least what any later one gets.
  await fault(ctl, { kind: "stall", ms: 1500, path: "/v1/debuginfo/all" });
  const atLeast = await ctl([...argv, "--first-byte-timeout", "1", "--timeout", "3"], { env });
  assertEquals(atLeast.code, 0, atLeast.stderr);
});
