/**
 * The console's asset pipeline: the committed `server/console/assets.gen.ts` is what
 * a fresh build of `server/console/client/` gives, the files stay within the size budget, and
 * the service serves the page and its assets offline, open, with immutable caching — on Deno,
 * from the Node bundle and from the edge entry alike.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { buildConsole, GENERATED } from "../tools/console_build.ts";
import { assets, entry } from "../server/console/assets.gen.ts";

import { createTokenSet, parseTokens } from "../server/mod.ts";
import { testApp } from "../testing/service.ts";
import { testTokens } from "../testing/auth_tokens.ts";
import { bundleAll } from "../tools/bundle.ts";
import edge from "../server/edge.ts";
import { startServer } from "../testing/server_process.ts";
import { startRedis } from "../testing/redis_server.ts";
import { startUpstashStandIn } from "../testing/upstash_standin.ts";
import { missingTools, requireTool } from "../testing/tools.ts";

/** The console's script and stylesheet together, gzipped, may not pass this. */
export const CONSOLE_GZIP_BUDGET = 60 * 1024;

const root = new URL("..", import.meta.url).pathname;

Deno.test("server/console/assets.gen.ts is a fresh build of the client (run `deno task console` when this fails)", async () => {
  const fresh = await buildConsole();
  const committed = await Deno.readTextFile(`${root}${GENERATED}`);
  assert(committed === fresh, `${GENERATED} is stale: run \`deno task console\` and commit it`);
});

Deno.test("the console's files are within the gzip budget of 60 KB", async () => {
  let total = 0;
  for (const [name, { text }] of Object.entries(assets)) {
    const gzipped = await new Response(
      new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer();
    console.log(`${name}: ${text.length} bytes, ${gzipped.byteLength} gzipped`);
    total += gzipped.byteLength;
  }
  assert(
    total > 0 && total <= CONSOLE_GZIP_BUDGET,
    `the console is ${total} bytes gzipped, over ${CONSOLE_GZIP_BUDGET}`,
  );
});

Deno.test("GET /console serves the shell and its hashed assets, open even when tokens are configured, offline", async () => {
  await using served = testApp({ tokens: createTokenSet(parseTokens(testTokens().file, "test")) });
  const { app } = served;
  const page = await app.request("/console");
  assertEquals(page.status, 200);
  assertMatch(page.headers.get("content-type") ?? "", /^text\/html/);
  const html = await page.text();
  assert(!/\bhttps?:|["'(]\/\//.test(html), `/console names another host:\n${html}`);
  const links = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  // The only other link is an empty inline icon (no /favicon.ico request).
  const urls = links.filter((url) => url !== "data:,");
  assertEquals(links.length - urls.length, 1, links.join(" "));
  assertEquals(urls.sort(), [`/console/assets/${entry.css}`, `/console/assets/${entry.js}`].sort());
  for (const url of urls) {
    const res = await app.request(url);
    assertEquals(res.status, 200, url);
    assertEquals(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
    const text = await res.text();
    assertEquals(text, assets[url.split("/").pop()!].text);
    // Offline: the bundle loads nothing from another host.
    assert(!/\bimport\s*\(?\s*["']https?:/.test(text) && !/@import\s+url\(\s*["']?https?:/.test(text), url);
  }
  assertMatch(
    (await app.request(`/console/assets/${entry.js}`)).headers.get("content-type") ?? "",
    /^text\/javascript/,
  );
  // An unknown asset is a 404 (and, as an open path, needs no token to say so).
  assertEquals((await app.request("/console/assets/main.0000000000.js")).status, 404);
});

/** Fetches the shell and each asset it links through `get`, and checks them against the embedded files. */
async function servesConsole(get: (path: string) => Promise<Response>, where: string): Promise<void> {
  const page = await get("/console");
  assertEquals(page.status, 200, `${where}: /console`);
  const html = await page.text();
  for (const name of [entry.js, entry.css]) {
    assert(html.includes(`/console/assets/${name}`), `${where}: the shell does not link ${name}`);
    const res = await get(`/console/assets/${name}`);
    assertEquals(res.status, 200, `${where}: ${name}`);
    assertEquals(await res.text(), assets[name].text, `${where}: ${name} differs from the embedded file`);
  }
}

Deno.test("the Node bundle serves the same console", { ignore: missingTools("node") }, async () => {
  const dir = await Deno.makeTempDir();
  try {
    await bundleAll(dir);
    await using server = await startServer([requireTool("node"), `${dir}/server.mjs`]);
    await servesConsole((path) => fetch(`${server.url}${path}`), "Node bundle");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the edge entry serves the same console", { ignore: missingTools("redis-server") }, async () => {
  await using redis = await startRedis();
  await using upstash = await startUpstashStandIn(redis.url);
  const env = { UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: upstash.token, ALLOW_ANONYMOUS: "true" };
  await servesConsole((path) => edge.fetch(new Request(`http://edge.test${path}`), env), "edge entry");
});
