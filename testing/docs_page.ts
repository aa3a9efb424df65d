import { assert, assertEquals } from "./assert.ts";

/**
 * Asserts that `/docs` works offline: the page names no other host, and every script and
 * stylesheet it references is served (200, its content type, cacheable, full size).
 * `get` fetches a path from the server under test.
 */
export async function assertDocsOffline(get: (path: string) => Promise<Response>): Promise<void> {
  const page = await get("/docs");
  assertEquals([page.status, page.headers.get("content-type")], [200, "text/html; charset=UTF-8"]);
  const html = await page.text();
  assert(!/\bhttps?:|["'(]\/\//.test(html), `/docs names another host:\n${html}`);
  assert(html.includes("'/openapi.json'"), "/docs does not show /openapi.json");
  const urls = [...html.matchAll(/<(?:link|script)\b[^>]*\b(?:href|src)="([^"]+)"/g)].map((m) => m[1]);
  assertEquals(urls.map((url) => url.replace(/.*\//, "")).sort(), ["swagger-ui-bundle.js", "swagger-ui.css"]);
  for (const url of urls) {
    assert(url.startsWith("/docs/"), url);
    const res = await get(url);
    const body = await res.arrayBuffer();
    const type = url.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8";
    assertEquals([res.status, res.headers.get("content-type")], [200, type], url);
    assertEquals(res.headers.get("cache-control"), "public, max-age=31536000, immutable", url);
    // swagger-ui-dist 5: 188 KB of CSS, 1.7 MB of JS.
    assert(body.byteLength > (type.startsWith("text/css") ? 100_000 : 1_000_000), `${url}: ${body.byteLength} bytes`);
  }
  const css = urls.find((url) => url.endsWith(".css"))!;
  for (const missing of [css.replace(/@[^/]+/, "@0.0.1"), css.replace("swagger-ui.css", "index.html")]) {
    const res = await get(missing);
    await res.body?.cancel();
    assertEquals(res.status, 404, missing);
  }
}
