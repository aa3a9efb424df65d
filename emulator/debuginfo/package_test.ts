import { unpackTar } from "modern-tar";
import { assert, assertEquals, assertNotEquals } from "../../testing/assert.ts";
import { type PackageOptions, packageStream, planPackage } from "./package.ts";

const OPTIONS: PackageOptions = {
  seed: 1,
  sizeMb: 2,
  scope: { kind: "cluster" },
  cluster: { name: "c1", softwareVersion: "7.2.4" },
  nodes: [1, 2, 3].map((uid) => ({ uid, addr: `10.0.0.${uid}` })),
  bdbs: [1, 2].map((uid) => ({ uid, name: `db${uid}` })),
};

async function sha256(stream: ReadableStream<Uint8Array>): Promise<string> {
  const bytes = await new Response(stream).bytes();
  return Array.from(
    new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)),
    (b) => b.toString(16).padStart(2, "0"),
  )
    .join("");
}

Deno.test("packageStream() is a tar.gz that looks like a real support package", async () => {
  const files = await unpackTar(packageStream(OPTIONS).pipeThrough(new DecompressionStream("gzip")));
  const byName = new Map(files.map((f) => [f.header.name, f]));
  for (const uid of [1, 2, 3]) {
    for (
      const name of [
        "node_info.json",
        "logs/redis-1.log",
        "logs/dmcproxy.log",
        "logs/cnm_http.log.1",
        "conf/redis-2.conf",
      ]
    ) {
      assert(byName.has(`node_${uid}/${name}`), `node_${uid}/${name}`);
    }
  }
  const text = (name: string) => new TextDecoder().decode(byName.get(name)!.data);
  // duplicated files: the cluster files are copied into every node folder
  assertEquals(text("node_2/cluster_info.json"), text("cluster/cluster_info.json"));
  assertEquals(JSON.parse(text("cluster/cluster_info.json")).name, "c1");
  // nested .gz files hold log text
  const nested = await new Response(
    new Blob([byName.get("node_1/logs/redis.log.1.gz")!.data!]).stream().pipeThrough(new DecompressionStream("gzip")),
  ).text();
  assert(nested.split("\n").length > 100);
  // log lines are timestamped and the file ends with a newline
  const log = text("node_1/logs/redis-1.log");
  assert(/^2026-01-01T\d\d:\d\d:\d\d\.\d{3}Z 4242:M /.test(log) && log.endsWith("\n"));
  const total = files.reduce((n, f) => n + f.header.size, 0);
  assert(Math.abs(total - 2 * 1024 * 1024) < 64 * 1024, `total ${total}`);
});

Deno.test("packageStream() is deterministic for a seed and differs across seeds", async () => {
  const a = await sha256(packageStream(OPTIONS));
  assertEquals(await sha256(packageStream(OPTIONS)), a);
  assertNotEquals(await sha256(packageStream({ ...OPTIONS, seed: 2 })), a);
});

Deno.test("planPackage() sizes grow with sizeMb and scopes select files", () => {
  const size = (o: PackageOptions) =>
    planPackage(o).reduce((n, e) => n + (e.kind === "text" ? e.text.length : e.size), 0);
  assert(size({ ...OPTIONS, sizeMb: 64 }) > 60 * 1024 * 1024);
  const node = planPackage({ ...OPTIONS, scope: { kind: "node", uid: 3 } }).map((e) => e.name);
  assert(node.length > 0 && node.every((n) => n.startsWith("node_3/")));
  const bdb = planPackage({ ...OPTIONS, scope: { kind: "bdb", uid: 2 } }).map((e) => e.name);
  assert(bdb.includes("node_1/logs/redis-2.log") && !bdb.includes("node_1/logs/redis-1.log"));
});

Deno.test("packageStream() stops generating when the reader cancels", async () => {
  const reader = packageStream({ ...OPTIONS, sizeMb: 10_000 }).getReader();
  await reader.read();
  await reader.cancel();
});
