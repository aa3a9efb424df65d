import { assertEquals, assertMatch, assertRejects } from "../../testing/assert.ts";
import { fetchTransport } from "../http/mod.ts";
import { createEnterpriseClient } from "./client.ts";
import { debuginfoPath, downloadDebuginfo, exactLength, servesNewRoutes } from "./debuginfo.ts";

Deno.test("debuginfoPath() gives each package type's old and new route", () => {
  const targets = [{ kind: "cluster" }, { kind: "database", uid: 3 }, { kind: "node", uid: 2 }, {
    kind: "nodes",
  }] as const;
  assertEquals(targets.map((t) => [debuginfoPath(t, "old"), debuginfoPath(t, "new")]), [
    ["/v1/debuginfo/all", "/v1/cluster/debuginfo"],
    ["/v1/debuginfo/all/bdb/3", "/v1/bdbs/3/debuginfo"],
    ["/v1/debuginfo/node/2", "/v1/nodes/2/debuginfo"],
    ["/v1/debuginfo/node", "/v1/nodes/debuginfo"],
  ]);
});

Deno.test("servesNewRoutes() is true from 7.4 on", () => {
  const versions = ["7.2.4", "7.3.99", "7.4", "7.4.2-92", "8.0.0", "10.1", "", "x"];
  assertEquals(versions.map(servesNewRoutes), [false, false, true, true, true, true, false, false]);
});

Deno.test("exactLength() fails a body that ends short of its length, or runs past it", async () => {
  const body = () => new Blob([new Uint8Array(10)]).stream();
  assertEquals((await new Response(body().pipeThrough(exactLength(10, "x"))).bytes()).length, 10);
  assertEquals((await new Response(body().pipeThrough(exactLength(undefined, "x"))).bytes()).length, 10);
  const short = await assertRejects(() => new Response(body().pipeThrough(exactLength(11, "/v1/x"))).bytes());
  assertMatch(short.message, /The download of \/v1\/x ended after 10 of 11 bytes: the connection broke/);
  await assertRejects(() => new Response(body().pipeThrough(exactLength(9, "x"))).bytes());
});

function client(handler: (request: Request) => Response) {
  return createEnterpriseClient(
    { url: "https://cluster.test:9443", username: "a", password: "b" },
    {
      transport: fetchTransport((input, init) => Promise.resolve(handler(new Request(input, init)))),
      timeoutMs: 5000,
    },
  );
}

Deno.test("downloadDebuginfo() tries the other family once on a 404, and says so", async () => {
  const seen: string[] = [];
  const c = client((request) => {
    seen.push(new URL(request.url).pathname);
    return request.url.endsWith("/debuginfo")
      ? Response.json({ message: "requires 7.4" }, { status: 404 })
      : new Response("gz", { headers: { "content-type": "application/x-gzip" } });
  });
  const fallbacks: string[] = [];
  const download = await downloadDebuginfo(c, { kind: "cluster" }, {
    family: "new",
    onFallback: (from, to) => fallbacks.push(`${from} → ${to}`),
  });
  assertEquals([download.family, download.path, seen], ["old", "/v1/debuginfo/all", [
    "/v1/cluster/debuginfo",
    "/v1/debuginfo/all",
  ]]);
  assertEquals(fallbacks, ["/v1/cluster/debuginfo → /v1/debuginfo/all"]);
  assertEquals(await new Response(download.body).text(), "gz");
});

Deno.test("downloadDebuginfo() skips the length check when a Content-Encoding was decoded on the way", async () => {
  const c = client(() =>
    new Response("ten bytes!", { headers: { "content-encoding": "gzip", "content-length": "4" } })
  );
  const download = await downloadDebuginfo(c, { kind: "nodes" }, { family: "old" });
  assertEquals([download.length, await new Response(download.body).text()], [undefined, "ten bytes!"]);
});
