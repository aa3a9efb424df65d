import { assertEquals, assertMatch } from "../testing/assert.ts";
import { createEmulator, DEFAULT_OPTIONS, FILES_API_KEY } from "./mod.ts";

const BASE = "http://files.test/files/api/rest/v1";
const hex = (b: ArrayBuffer) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, "0")).join("");

function service() {
  const emulator = createEmulator({ ...DEFAULT_OPTIONS, taskDelayMs: 0 });
  const call = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    emulator.cloud.fetch(
      new Request(url, {
        method,
        headers: { "x-filesapi-key": FILES_API_KEY, ...headers },
        body: body instanceof Uint8Array
          ? new Blob([body as Uint8Array<ArrayBuffer>])
          : body === undefined
          ? undefined
          : JSON.stringify(body),
      }),
    );
  return { emulator, call };
}

Deno.test("files service: begin, PUT parts, end; checks key, size and the SHA-256 over the parts", async () => {
  const { emulator, call } = service();
  const parts = [new Uint8Array([1, 2, 3]), new Uint8Array([4, 5])];
  const [first] = await (await call("POST", `${BASE}/file_actions/begin_upload/up/a.tgz`, { size: 5 })).json();
  assertMatch(first.upload_uri, /^http:\/\/files\.test\/files\/upload\/put-.+\/1$/);
  assertEquals((await call("PUT", first.upload_uri, parts[0])).status, 200);
  const [second] = await (await call("POST", `${BASE}/file_actions/begin_upload/up/a.tgz`, {
    ref: first.ref,
    part: 2,
  })).json();
  const badPart = await call("PUT", second.upload_uri, parts[1], { "x-content-sha256": "00" });
  assertEquals(badPart.status, 400);
  assertEquals((await call("PUT", second.upload_uri, parts[1])).status, 200);
  const digests = new Uint8Array(64);
  digests.set(new Uint8Array(await crypto.subtle.digest("SHA-256", parts[0])), 0);
  digests.set(new Uint8Array(await crypto.subtle.digest("SHA-256", parts[1])), 32);
  const sha256 = `${hex(await crypto.subtle.digest("SHA-256", digests))}-2`;
  const wrongSize = await call("POST", `${BASE}/files/up/a.tgz`, { action: "end", ref: first.ref, size: 6 });
  assertEquals(wrongSize.status, 422);
  assertMatch((await wrongSize.json()).error, /Size mismatch: end said 6 bytes, 5 arrived/);
  const wrongSum = await call("POST", `${BASE}/files/up/a.tgz`, { action: "end", ref: first.ref, sha256: "x-2" });
  assertEquals(wrongSum.status, 422);
  const done = await call("POST", `${BASE}/files/up/a.tgz`, { action: "end", ref: first.ref, size: 5, sha256 });
  assertEquals([done.status, await done.json()], [201, { path: "up/a.tgz", size: 5, sha256, type: "file" }]);
  assertEquals(emulator.files(), [{ path: "up/a.tgz", size: 5, sha256 }]);
  assertEquals(await (await call("GET", `${BASE}/folders/up`)).json(), [{ path: "up/a.tgz", size: 5, sha256 }]);
});

Deno.test("files service: a wrong or missing key is 401; a missing part or announced size is 422", async () => {
  const { call } = service();
  const wrong = await call("POST", `${BASE}/file_actions/begin_upload/up/b`, {}, { "x-filesapi-key": "nope" });
  assertEquals([wrong.status, (await wrong.json()).error], [401, "Invalid API key"]);
  const [part] = await (await call("POST", `${BASE}/file_actions/begin_upload/up/b`, { size: 10 })).json();
  await call("PUT", part.upload_uri, new Uint8Array(4));
  const short = await call("POST", `${BASE}/files/up/b`, { action: "end", ref: part.ref });
  assertMatch((await short.json()).error, /Size mismatch: begin_upload said 10 bytes, 4 arrived/);
  const [p3] = await (await call("POST", `${BASE}/file_actions/begin_upload/up/b`, { ref: part.ref, part: 3 })).json();
  await call("PUT", p3.upload_uri, new Uint8Array(6));
  const gap = await call("POST", `${BASE}/files/up/b`, { action: "end", ref: part.ref });
  assertEquals([gap.status, (await gap.json()).error], [422, "Parts missing: received 1, 3"]);
});
