import { assert, assertEquals, assertMatch } from "../../../../testing/assert.ts";
import { CLOUD_URL, EMULATOR_ENV, type InProcessCtl, inProcessCtl } from "../../../../testing/ctl_in_process.ts";

const FILES = {
  ...EMULATOR_ENV,
  STORE_FILES_API_URL: `${new URL(CLOUD_URL).origin}/files/api/rest/v1`,
  STORE_ENTERPRISE_FILES_API_KEY: "demo-files-key",
  STORE_FILES_PART_SIZE: String(64 * 1024),
};

async function files(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.filter((n) => n !== "config.toml" && n !== ".local").sort(); // .local: the job state
}

/** The SHA-256 over the SHA-256s of `bytes` cut in parts, as the service computes it. */
async function partsSha256(bytes: Uint8Array<ArrayBuffer>, partSize: number): Promise<string> {
  const hex = (b: ArrayBuffer) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, "0")).join("");
  const digests: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += partSize) {
    digests.push(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes.slice(at, at + partSize))));
  }
  const all = new Uint8Array(digests.length * 32);
  digests.forEach((d, i) => all.set(d, i * 32));
  return `${hex(await crypto.subtle.digest("SHA-256", all))}-${digests.length}`;
}

function fault(ctl: InProcessCtl, body: Record<string, unknown>) {
  return ctl.emulator.cloud.fetch(
    new Request(`${new URL(CLOUD_URL).origin}/__emulator/faults`, { method: "POST", body: JSON.stringify(body) }),
  );
}

Deno.test("support-package --upload saves, then uploads in parts checked by size and SHA-256", async () => {
  await using ctl = await inProcessCtl({ debuginfoMb: 2 });
  const r = await ctl(["enterprise", "support-package", "cluster", "--upload", "-o", "json"], { env: FILES });
  assertEquals(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  const human = await ctl(["enterprise", "support-package", "cluster", "--upload", "-o", "h.tgz"], {
    env: FILES,
    tty: { stdout: true, stderr: true },
  });
  assertEquals(human.code, 0, human.stderr);
  // IEC sizes in the upload's status line and its result line, as everywhere.
  // deno-lint-ignore no-control-regex
  assertMatch(human.stderr, /\r\x1b\[KUploading h\.tgz: part 1, 64 KiB of [\d.]+ (KiB|MiB)/);
  assertMatch(human.stderr, /Uploaded support-uploads\/h\.tgz \([\d.]+ (KiB|MiB), \d+ parts\)/);
  const [name] = (await files(ctl.dir)).filter((n) => n !== "h.tgz");
  const local = await Deno.readFile(`${ctl.dir}/${name}`);
  assertEquals(result.file_path, `${ctl.dir}/${name}`);
  assertEquals(result.upload.remote_path, `support-uploads/${name}`);
  assertEquals(result.upload.size, local.length);
  assertEquals(result.upload.parts, Math.ceil(local.length / (64 * 1024)));
  assert(result.upload.parts > 1, "several parts");
  assertEquals(result.upload.sha256, await partsSha256(local, 64 * 1024));
  assertEquals(ctl.emulator.files().filter((f) => f.path !== "support-uploads/h.tgz"), [{
    path: `support-uploads/${name}`,
    size: local.length,
    sha256: result.upload.sha256,
  }]);
  assertMatch(r.stderr, /Next steps:\n {2}1\. It is uploaded as support-uploads\/support-package-cluster-/);
  const begins = r.requests.filter((q) => q.includes("begin_upload"));
  assertEquals(begins.length, result.upload.parts);
});

Deno.test("support-package --upload sends a failed part again and says so", async () => {
  await using ctl = await inProcessCtl({ debuginfoMb: 2 });
  await fault(ctl, { kind: "status", status: 500, count: 1, path: "/files/upload/" });
  const r = await ctl(["enterprise", "support-package", "node", "1", "--upload", "-o", "json"], { env: FILES });
  assertEquals(r.code, 0, r.stderr);
  assertMatch(
    r.stderr,
    /Part 1 failed \(PUT .* failed with HTTP 500: Injected fault: HTTP 500\); sending it again \(attempt 2\)/,
  );
  const puts = r.requests.filter((q) => q.startsWith("PUT /files/upload/"));
  assertEquals(puts.length, JSON.parse(r.stdout).upload.parts + 1);
  assertEquals(ctl.emulator.files().length, 1);
});

Deno.test("support-package --upload: the upload's HTTP retries follow --retries and are said like every request's", async () => {
  await using ctl = await inProcessCtl();
  await fault(ctl, { kind: "status", status: 503, retryAfter: 0, count: 1, path: "/files/upload/" });
  const r = await ctl(["enterprise", "support-package", "cluster", "--upload", "--no-save", "-o", "json"], {
    env: FILES,
  });
  assertEquals(r.code, 0, r.stderr);
  assertMatch(
    r.stderr,
    /Retrying PUT http:\/\/cloud\.test\/files\/upload\/\S+ in \d+ ms: HTTP 503 \(retry 1 of 3\)\n/,
  );
  assert(!r.stderr.includes("Part 1 failed"), "the HTTP client's retry was enough");
  await fault(ctl, { kind: "status", status: 503, retryAfter: 0, count: 1, path: "/files/upload/" });
  const none = await ctl([
    "enterprise",
    "support-package",
    "cluster",
    "--upload",
    "--no-save",
    "-o",
    "json",
    "--retries",
    "0",
  ], {
    env: FILES,
  });
  assertEquals(none.code, 0, none.stderr);
  assert(!none.stderr.includes("Retrying"), none.stderr);
  assertMatch(none.stderr, /Part 1 failed \(PUT .* HTTP 503.*\); sending it again \(attempt 2\)/);
});

Deno.test("support-package --upload --no-save keeps no file, says so first, and fails cleanly", async () => {
  await using ctl = await inProcessCtl({ debuginfoMb: 2 });
  const r = await ctl(["enterprise", "support-package", "database", "1", "--upload", "--no-save", "--optimize"], {
    env: FILES,
    tty: { stdout: true },
  });
  assertEquals(r.code, 0, r.stderr);
  assertMatch(
    r.stderr,
    /^--no-save: the package goes straight to the upload; no local copy is kept, even if it fails\n/,
  );
  // What happened, in one line: uploaded, and no local copy kept.
  assertMatch(
    r.stderr,
    /\nUploaded the database support package of cluster\.example\.local to http:\/\/cloud\.test\/files\/api\/rest\/v1 as support-uploads\/support-package-database-1-\d{8}T\d{6}\.tar\.gz \([\d.]+ KiB, \d+ parts?\) in \d+ s; no local copy kept \(--no-save\)\n/,
  );
  assert(!/Saved|not saved/.test(r.stderr), r.stderr);
  assertEquals(await files(ctl.dir), []);
  const [stored] = ctl.emulator.files();
  assertMatch(stored.path, /^support-uploads\/support-package-database-1-\d{8}T\d{6}\.tar\.gz$/);
  assert(!r.stderr.includes("Delete "), "nothing local to delete");

  await fault(ctl, { kind: "status", status: 500, count: 3, path: "/files/upload/" });
  const failed = await ctl(["enterprise", "support-package", "cluster", "--upload", "--no-save", "-o", "json"], {
    env: FILES,
  });
  assertEquals(failed.code, 8, failed.stderr);
  const result = JSON.parse(failed.stdout);
  assertEquals([result.success, result.file_path], [false, undefined]);
  assertEquals(await files(ctl.dir), []);
});

Deno.test("support-package --upload: a failed upload keeps the saved file and says where it is", async () => {
  await using ctl = await inProcessCtl();
  await fault(ctl, { kind: "status", status: 500, count: 3, path: "/files/upload/" });
  const r = await ctl(["enterprise", "support-package", "cluster", "--upload", "-o", "json"], { env: FILES });
  assertEquals(r.code, 8, r.stderr);
  const [name] = await files(ctl.dir);
  assertMatch(r.stderr, /The upload failed: PUT .* HTTP 500/);
  assertMatch(r.stderr, new RegExp(`The package is saved at ${ctl.dir}/${name}`));
  const result = JSON.parse(r.stdout);
  assertEquals([result.success, result.file_path], [false, `${ctl.dir}/${name}`]);
});

Deno.test("support-package --upload needs a key before any request; a wrong key is an auth error", async () => {
  await using ctl = await inProcessCtl();
  const none = await ctl(["enterprise", "support-package", "cluster", "--upload"], {
    env: { ...FILES, STORE_ENTERPRISE_FILES_API_KEY: undefined },
  });
  assertEquals([none.code, none.requests], [3, []]);
  assertMatch(none.stderr, /No file-transfer API key for --upload\n {2}tip: Store one with: ctl files-key set <key>/);
  const wrong = await ctl(["enterprise", "support-package", "cluster", "--upload", "--no-save"], {
    env: { ...FILES, STORE_ENTERPRISE_FILES_API_KEY: "not-the-key-0123456789" },
  });
  assertEquals(wrong.code, 4, wrong.stderr);
  assert(!wrong.stderr.includes("not-the-key-0123456789"), "the key is never printed");
  const alone = await ctl(["enterprise", "support-package", "cluster", "--no-save"], { env: FILES });
  assertEquals([alone.code, alone.requests], [2, []]);
  assertMatch(alone.stderr, /--no-save needs --upload/);
});
