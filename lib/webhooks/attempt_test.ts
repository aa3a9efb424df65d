import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { opensslCertificate } from "../../testing/certs.ts";
import { missingTools } from "../../testing/tools.ts";
import { attemptDelivery } from "./attempt.ts";

const HEADERS = { "webhook-id": "msg_1", "content-type": "application/json" };
const BODY = JSON.stringify({ type: "task.done" });

interface Seen {
  method: string;
  path: string;
  host: string | null;
  id: string | null;
  body: string;
}

/** A real server on 127.0.0.1 that records what it is sent; `await using` stops it. */
function receiver(answer: (seen: Seen) => Response | Promise<Response>, tls?: { cert: string; key: string }) {
  const seen: Seen[] = [];
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen() {},
    ...(tls && { cert: tls.cert, key: tls.key }),
  }, async (request) => {
    const entry = {
      method: request.method,
      path: new URL(request.url).pathname + new URL(request.url).search,
      host: request.headers.get("host"),
      id: request.headers.get("webhook-id"),
      body: await request.text(),
    };
    seen.push(entry);
    return answer(entry);
  });
  return { seen, port: server.addr.port, [Symbol.asyncDispose]: () => server.shutdown() };
}

function attempt(port: number, host = "127.0.0.1", more: { timeoutMs?: number; ca?: string; scheme?: string } = {}) {
  const { scheme = "http", ...options } = more;
  return attemptDelivery({
    url: new URL(`${scheme}://${host}:${port}/hooks?x=1`),
    address: "127.0.0.1",
    family: 4,
    headers: HEADERS,
    body: BODY,
    ...options,
  });
}

Deno.test("a 2xx answer is a delivered attempt; the receiver gets the POST, its headers and body", async () => {
  await using server = receiver(() => new Response("thanks"));
  const result = await attempt(server.port);
  assertEquals({ ...result, ms: 0 }, { ok: true, status: 200, ms: 0 });
  assert(result.ms >= 0 && result.ms < 10_000);
  assertEquals(server.seen, [{
    method: "POST",
    path: "/hooks?x=1",
    host: `127.0.0.1:${server.port}`,
    id: "msg_1",
    body: BODY,
  }]);
});

Deno.test("a 500 answer is a failed attempt with its status", async () => {
  await using server = receiver(() => new Response("boom", { status: 500 }));
  assertEquals({ ...(await attempt(server.port)), ms: 0 }, { ok: false, status: 500, error: "answered 500", ms: 0 });
});

Deno.test("a redirect is not followed: a failed attempt, and its target sees no request", async () => {
  await using target = receiver(() => new Response("ok"));
  await using server = receiver(() => Response.redirect(`http://127.0.0.1:${target.port}/elsewhere`, 302));
  const result = await attempt(server.port);
  assertEquals(result.ok, false);
  assertEquals(result.status, 302);
  assertMatch(result.error!, /answered 302 \(redirects are not followed\)/);
  assertEquals(server.seen.length, 1);
  assertEquals(target.seen, []);
});

Deno.test("a receiver that never answers is given up after timeoutMs", async () => {
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  await using server = receiver(async () => (await released, new Response("late")));
  try {
    const result = await attempt(server.port, "127.0.0.1", { timeoutMs: 1_000 });
    assertEquals({ ...result, ms: 0 }, { ok: false, error: "no answer within 1 s", ms: 0 });
    assert(result.ms >= 990 && result.ms < 5_000, `took ${result.ms} ms`);
    assertEquals(server.seen.length, 1, "the request did arrive");
  } finally {
    release(); // so that the server can shut down
  }
});

Deno.test("a refused connection is returned as a failed attempt, not thrown", async () => {
  // Nothing listens on a port just freed.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const result = await attempt(port);
  assertEquals(result.ok, false);
  assertEquals(result.status, undefined);
  assertMatch(result.error!, /ECONNREFUSED/);
});

Deno.test("the connection goes to the pinned address, while Host keeps the URL's name", async () => {
  await using server = receiver(() => new Response("ok"));
  const result = await attempt(server.port, "pinned.invalid");
  assertEquals(result.ok, true, result.error);
  assertEquals(server.seen.map((s) => s.host), [`pinned.invalid:${server.port}`]);
});

Deno.test("the attempt reads the start of an endless answer and ends, without waiting for the rest", async () => {
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  // The answer's body never ends: an attempt that read it all would only end at the timeout.
  const endless = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(new Uint8Array(64 * 1024));
      await released;
      controller.close();
    },
  });
  await using server = receiver(() => new Response(endless));
  try {
    const result = await attempt(server.port, "127.0.0.1", { timeoutMs: 5_000 });
    assertEquals(result.ok, true, result.error);
    assert(result.ms < 4_000, `took ${result.ms} ms`);
  } finally {
    release();
  }
});

Deno.test("TLS is checked against the URL's hostname, not the pinned address", {
  ignore: missingTools("openssl"),
}, async () => {
  const right = await opensslCertificate("DNS:pinned.test");
  const wrong = await opensslCertificate("DNS:other.test");
  await using good = receiver(() => new Response("ok"), right);
  await using bad = receiver(() => new Response("ok"), wrong);
  const https = { scheme: "https" };
  assertEquals((await attempt(good.port, "pinned.test", { ...https, ca: right.cert })).ok, true);
  assertEquals(good.seen.map((s) => s.host), [`pinned.test:${good.port}`]);
  const untrusted = await attempt(good.port, "pinned.test", https);
  assertMatch(untrusted.error!, /self-signed certificate/);
  const mismatch = await attempt(bad.port, "pinned.test", { ...https, ca: wrong.cert });
  assertMatch(mismatch.error!, /pinned\.test.*ERR_TLS_CERT_ALTNAME_INVALID/);
  assertEquals(bad.seen, []);
});
