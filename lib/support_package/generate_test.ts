import { packTar } from "modern-tar";
import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import type { EnterpriseCredentials } from "../config/mod.ts";
import { createEnterpriseClient } from "../enterprise/mod.ts";
import { StoreCtlError } from "../errors/mod.ts";
import { type ClientSettings, fetchTransport } from "../http/mod.ts";
import { runtime } from "../runtime/deno.ts";
import { DamagedPackageError } from "./damaged.ts";
import { type GenerateRequest, generateSupportPackage, lowestVersion } from "./generate.ts";

const CLUSTER = "https://cluster.test:9443";
const FILES = "https://files.test/api/rest/v1";

/** A small package: a log of 50 lines and a nested archive, gzipped. */
async function pkg(): Promise<Uint8Array<ArrayBuffer>> {
  const log = Array.from({ length: 50 }, (_, i) => `line ${i}\n`).join("");
  const tar = await packTar([
    { header: { name: "node_1/logs/redis.log", size: log.length }, body: log },
    { header: { name: "node_1/logs/redis.log.1.gz", size: 4 }, body: "gzip" },
  ]);
  return await new Response(new Blob([tar]).stream().pipeThrough(new CompressionStream("gzip"))).bytes();
}

interface Server {
  version: string;
  /** Paths that answer 404. */
  missing: RegExp;
  /** A PUT of a part answers this status while `partFailures` lasts. */
  partFailures: number;
  /** Stops sending the body after this many bytes, without ending it. */
  stallAfter?: number;
  requests: string[];
  stored?: { size: number };
  /** The package the cluster sends; default `pkg()`. */
  body?: Uint8Array<ArrayBuffer>;
}

/** The cluster and the file-transfer service, as fetch handlers with the real shapes. */
function settings(server: Server, body: Uint8Array<ArrayBuffer>): ClientSettings {
  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    server.requests.push(`${request.method} ${url.pathname}`);
    if (server.missing.test(url.pathname)) return Response.json({ error_code: "not_found" }, { status: 404 });
    if (url.pathname === "/v1/cluster") return Response.json({ name: "c.example" });
    if (url.pathname === "/v1/nodes") {
      return Response.json([{ uid: 1, software_version: server.version }, { uid: 2, software_version: "8.0.2" }]);
    }
    if (url.pathname.includes("debuginfo")) {
      const stream = server.stallAfter === undefined
        ? new Blob([body]).stream()
        : new ReadableStream({ start: (c) => c.enqueue(body.slice(0, server.stallAfter)) });
      return new Response(stream, { headers: { "content-length": String(body.length) } });
    }
    if (url.pathname.includes("/file_actions/begin_upload/")) {
      return Response.json([{ ref: "r1", upload_uri: "https://files.test/upload/part", http_method: "PUT" }]);
    }
    if (url.pathname === "/upload/part") {
      await request.arrayBuffer();
      return server.partFailures-- > 0 ? new Response("down", { status: 500 }) : new Response(null);
    }
    if (url.pathname.startsWith("/api/rest/v1/files/")) {
      const end = await request.json();
      server.stored = { size: end.size };
      return Response.json({ size: end.size });
    }
    return new Response("unexpected", { status: 500 });
  };
  return {
    transport: fetchTransport((input, init) => handler(new Request(input, init))),
    timeoutMs: 5000,
    retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1 },
  };
}

async function world(options: Partial<Server> = {}) {
  const server: Server = { version: "7.2.4", missing: /^$/, partFailures: 0, requests: [], ...options };
  const http = settings(server, server.body ?? await pkg());
  const client = createEnterpriseClient(
    { deployment: "enterprise", url: CLUSTER, username: "a", password: "p" } as EnterpriseCredentials,
    http,
  );
  const dir = await Deno.makeTempDir({ prefix: "sp-generate-" });
  const events: string[] = [];
  const deps = { client, fs: runtime.fs, now: () => performance.now() };
  const run = (request: Partial<GenerateRequest>) =>
    generateSupportPackage({ target: { kind: "cluster" }, name: "p.tar.gz", ...request }, deps, {
      onCluster: (c) => events.push(`cluster ${c.name} ${c.version}`),
      onFamily: (family, why, version) => events.push(`family ${family} (${why}, ${version})`),
      onFallback: (from, to) => events.push(`fallback ${from} → ${to}`),
      onDownloadStart: (d) => events.push(`download ${d.path} ${d.family} ${d.size}`),
      onDownloadProgress: (_received, size) => events.at(-1) !== "progress" && size && events.push("progress"),
      onDownloaded: (received) => events.push(`downloaded ${received}`),
      onOptimizeAction: (a) => events.push(`${a.action} ${a.name}`),
      onOptimized: (s) => events.push(`optimized ${s.filesTruncated} ${s.filesRemoved}`),
      onSaved: (path, size) => events.push(`saved ${path.slice(dir.length + 1)} ${size}`),
      onUploadPart: (part, _sent, size) => part === 1 && events.push(`part 1 of ${size}`),
      onUploadRetry: (part, attempt) => events.push(`retry part ${part} attempt ${attempt}`),
    });
  return { server, http, dir, events, run, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

Deno.test("generateSupportPackage() tells each step and returns the specification's result", async () => {
  await using w = await world();
  const size = (await pkg()).length;
  const outcome = await w.run({ path: `${w.dir}/p.tar.gz`, startedAt: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)) });
  assert(outcome.ok, String(!outcome.ok && outcome.error));
  assertEquals(w.events, [
    "cluster c.example 7.2.4",
    "family old (version, 7.2.4)",
    `download /v1/debuginfo/all old ${size}`,
    "progress",
    `downloaded ${size}`,
    `saved p.tar.gz ${size}`,
  ]);
  const { result } = outcome;
  assertEquals(
    [result.success, result.package_type, result.file_path, result.file_size, result.endpoint, result.timestamp],
    [true, "cluster", `${w.dir}/p.tar.gz`, size, "/v1/debuginfo/all", "2026-01-02T03:04:05Z"],
  );
  assertEquals([result.cluster_name, result.cluster_version], ["c.example", "7.2.4"]);
  assertEquals(result.message, `Support package saved to ${w.dir}/p.tar.gz`);
  assertEquals((await Deno.readFile(`${w.dir}/p.tar.gz`)).length, size);
});

Deno.test("generateSupportPackage() asks the new family from 7.4, falls back once on a 404, or takes a forced one", async () => {
  await using w = await world({ version: "7.4.2", missing: /^\/v1\/cluster\/debuginfo$/ });
  const outcome = await w.run({ path: `${w.dir}/p.tar.gz` });
  assert(outcome.ok);
  assertEquals(w.events.slice(1, 4), [
    "family new (version, 7.4.2)",
    "fallback /v1/cluster/debuginfo → /v1/debuginfo/all",
    `download /v1/debuginfo/all old ${(await pkg()).length}`,
  ]);
  assertEquals(outcome.result.endpoint, "/v1/debuginfo/all");
  w.events.length = 0;
  assert((await w.run({ path: `${w.dir}/q.tar.gz`, target: { kind: "database", uid: 3 }, family: "old" })).ok);
  assertEquals(w.events[1], "family old (forced, 7.4.2)");
  assertEquals(w.server.requests.at(-1), "GET /v1/debuginfo/all/bdb/3");
});

Deno.test("generateSupportPackage() optimizes on the fly and reports each action and the statistics", async () => {
  await using w = await world();
  const outcome = await w.run({ path: `${w.dir}/p.tar.gz`, optimize: { logLines: 10 } });
  assert(outcome.ok);
  assert(w.events.includes("truncated node_1/logs/redis.log"), w.events.join("\n"));
  assert(w.events.includes("removed node_1/logs/redis.log.1.gz"));
  assert(w.events.includes("optimized 1 1"));
  assertEquals(outcome.optimization?.filesTruncated, 1);
  assertEquals(outcome.result.optimization?.files_removed, 1);
  assertEquals(outcome.result.file_size, outcome.optimization?.bytesAfter);
});

Deno.test("generateSupportPackage() says a damaged package is damaged when optimizing it, and keeps no file", async () => {
  const cut = await pkg();
  await using w = await world({ body: cut.slice(0, cut.length - 12) }); // no gzip trailer
  const outcome = await w.run({ path: `${w.dir}/p.tar.gz`, optimize: { logLines: 10 } });
  assert(!outcome.ok);
  assert(outcome.error instanceof DamagedPackageError, String(outcome.error));
  assertMatch(outcome.error.message, /^The support package is damaged: it is not a complete gzip stream \(/);
  assertEquals([outcome.result.success, outcome.result.error], [false, outcome.error.message]);
  assertEquals(await Array.fromAsync(Deno.readDir(w.dir)), []);
});

Deno.test("generateSupportPackage() uploads without a local copy, in parts, telling each", async () => {
  await using w = await world();
  const outcome = await w.run({ upload: { baseUrl: FILES, key: "k", folder: "up", partBytes: 256, settings: w.http } });
  assert(outcome.ok, String(!outcome.ok && outcome.error));
  const { result } = outcome;
  assertEquals([result.file_path, result.upload?.remote_path, result.upload?.service], [
    undefined,
    "up/p.tar.gz",
    FILES,
  ]);
  assertEquals(result.message, "Support package uploaded to up/p.tar.gz");
  assertEquals(w.server.stored?.size, result.file_size);
  assert(w.events.includes("part 1 of undefined"), w.events.join("\n"));
  assert(!w.events.some((e) => e.startsWith("saved")));
  assertEquals(await Array.fromAsync(Deno.readDir(w.dir)), []);
});

Deno.test("generateSupportPackage() sends a failed part again; a failed upload of a saved package says where it is", async () => {
  await using w = await world({ partFailures: 1 });
  const upload = { baseUrl: FILES, key: "k", folder: "up", partBytes: 1 << 20, settings: w.http };
  const again = await w.run({ path: `${w.dir}/p.tar.gz`, upload });
  assert(again.ok);
  assert(w.events.includes("retry part 1 attempt 2"), w.events.join("\n"));
  assertEquals(again.result.message, `Support package uploaded to up/p.tar.gz, and saved to ${w.dir}/p.tar.gz`);

  w.server.partFailures = 3;
  const failed = await w.run({ path: `${w.dir}/p.tar.gz`, upload });
  assert(!failed.ok);
  const error = failed.error as StoreCtlError;
  assertMatch(error.message, /^The upload failed: PUT .* failed with HTTP 500/);
  assertEquals(error.tips.at(-1), `The package is saved at ${w.dir}/p.tar.gz; upload it by hand or run again`);
  assertEquals([failed.result.success, failed.result.file_path], [false, `${w.dir}/p.tar.gz`]);
  assertEquals(failed.result.error, error.message);
});

Deno.test("generateSupportPackage() fails with the signal's reason once it aborts, and leaves no file", async () => {
  await using w = await world({ stallAfter: 100 });
  const stop = new AbortController();
  const reason = new StoreCtlError("timeout", "not complete in time");
  const running = generateSupportPackage(
    { target: { kind: "cluster" }, name: "p.tar.gz", path: `${w.dir}/p.tar.gz`, signal: stop.signal },
    { client: createEnterpriseClient({ url: CLUSTER } as EnterpriseCredentials, w.http), fs: runtime.fs },
    { onDownloadProgress: () => stop.abort(reason) },
  );
  const outcome = await running;
  assert(!outcome.ok);
  assertEquals([outcome.error, outcome.result.success, outcome.result.cluster_name], [reason, false, "c.example"]);
  assertEquals(outcome.result.endpoint, "/v1/debuginfo/all");
  assertEquals(await Array.fromAsync(Deno.readDir(w.dir)), []);
});

Deno.test("lowestVersion() picks the oldest node's version, numerically", () => {
  const nodes = (versions: string[]) => versions.map((software_version) => ({ software_version })) as never;
  assertEquals(lowestVersion(nodes(["7.10.2", "7.4.2", "7.8.0"])), "7.4.2");
  assertEquals(lowestVersion(nodes([])), undefined);
});
