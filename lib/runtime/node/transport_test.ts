import { assert, assertEquals, assertMatch } from "../../../testing/assert.ts";
import { opensslCertificate } from "../../../testing/certs.ts";
import { missingTools, requireTool } from "../../../testing/tools.ts";
import { bundle } from "../../../tools/bundle.ts";
import { classifyFailure, describeFailure } from "../../http/classify.ts";
import type { ProbeRequest, ProbeResult } from "./transport_probe_types.ts";
import { sleep } from "../../time/mod.ts";

const MiB = 2 ** 20;

/** What the servers saw, for the checks that the client held back or hung up. */
interface ServerState {
  pulled: number;
  cancelled: number;
  uploaded: number;
}

/** Test routes: JSON, an echo, N bytes of zeros, an endless trickle, a stall before headers. */
function routes(state: ServerState, released: Promise<void>) {
  return async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    switch (url.pathname) {
      case "/json": {
        const headers = new Headers({ "content-type": "application/json" });
        headers.append("x-multi", "a");
        headers.append("x-multi", "b");
        return new Response(JSON.stringify({ hello: "wörld" }), { headers });
      }
      case "/echo": {
        const body = new Uint8Array(await req.arrayBuffer());
        return Response.json({
          method: req.method,
          contentLength: req.headers.get("content-length"),
          transferEncoding: req.headers.get("transfer-encoding"),
          text: new TextDecoder().decode(body.slice(0, 64)),
          bytes: body.length,
        });
      }
      case "/upload": {
        for await (const chunk of req.body!) state.uploaded += chunk.length;
        return Response.json({ bytes: state.uploaded });
      }
      case "/zeros":
        return new Response(zeros(Number(url.searchParams.get("bytes")), state));
      case "/endless":
        return new Response(endless(state));
      case "/empty":
        return new Response(null, { status: 204 });
      case "/stall":
        await Promise.race([released, sleep(5_000)]);
        return new Response("late");
    }
    return new Response("not found", { status: 404 });
  };
}

/** `total` bytes of zeros, made only as the connection takes them. */
function zeros(total: number, state: ServerState): ReadableStream<Uint8Array> {
  let left = total;
  return new ReadableStream({
    pull(controller) {
      if (left === 0) return controller.close();
      const size = Math.min(64 * 1024, left);
      left -= size;
      state.pulled += size;
      controller.enqueue(new Uint8Array(size));
    },
    cancel: () => void state.cancelled++,
  }, { highWaterMark: 0 });
}

/** 1 KiB every 10 ms until the client hangs up. */
function endless(state: ServerState): ReadableStream<Uint8Array> {
  return new ReadableStream({
    async pull(controller) {
      await sleep(10);
      controller.enqueue(new Uint8Array(1024));
    },
    cancel: () => void state.cancelled++,
  }, { highWaterMark: 0 });
}

/** A server that promises 1 MB, sends 1000 bytes and closes the connection. */
function cuttingServer(): { port: number; close(): void; done: Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const done = (async () => {
    for await (const conn of listener) {
      await conn.read(new Uint8Array(16 * 1024));
      const head = "HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: 1000000\r\n\r\n";
      await conn.write(new Uint8Array([...new TextEncoder().encode(head), ...new Uint8Array(1000)]));
      conn.close();
    }
  })().catch(() => {});
  return { port: (listener.addr as Deno.NetAddr).port, close: () => listener.close(), done };
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Waits (up to 2 s) for `check` to hold. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await sleep(20);
  assert(check(), what);
}

Deno.test("nodeTransport() on real Node: node:http(s) with streams, aborts, TLS and classified failures, never fetch", {
  ignore: missingTools("node", "openssl"),
}, async (t) => {
  const node = requireTool("node");
  const dir = await Deno.makeTempDir();
  const tls = await opensslCertificate();
  const other = await opensslCertificate("DNS:example.invalid");
  const state: ServerState = { pulled: 0, cancelled: 0, uploaded: 0 };
  let release = () => {};
  const released = new Promise<void>((resolve) => release = resolve);
  const handler = routes(state, released);
  const quiet = { hostname: "127.0.0.1", port: 0, onListen() {} };
  const plain = Deno.serve(quiet, handler);
  const secure = Deno.serve({ ...quiet, cert: tls.cert, key: tls.key }, handler);
  const misnamed = Deno.serve({ ...quiet, cert: other.cert, key: other.key }, handler);
  const proxied: string[] = [];
  const proxy = Deno.serve(quiet, async (req) => {
    proxied.push(req.url);
    const upstream = await fetch(req.url, { method: req.method, headers: req.headers });
    return new Response(upstream.body, { status: upstream.status, headers: upstream.headers });
  });
  const cutting = cuttingServer();
  const http = `http://127.0.0.1:${plain.addr.port}`;
  const https = `https://localhost:${secure.addr.port}`;

  async function probe(request: ProbeRequest): Promise<ProbeResult & { exitLagMs: number }> {
    const out = await new Deno.Command(node, {
      args: [`${dir}/transport_probe.js`, JSON.stringify(request)],
      // As in ctl, the transport's env is the process's own (undici's proxy agent reads process.env).
      env: request.env,
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(20_000),
    }).output();
    const exitedAt = Date.now();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    assertEquals(out.code, 0, `the probe failed: ${decode(out.stderr)}`);
    const result: ProbeResult = JSON.parse(decode(out.stdout));
    return { ...result, exitLagMs: exitedAt - result.doneAt! };
  }

  /** The direct path loaded no undici, touched no fetch global, and let Node exit at once. */
  function direct(result: ProbeResult & { exitLagMs: number }) {
    assertEquals(
      { touched: result.touched, nodeUndici: result.nodeUndiciLoaded, http2: result.http2Loaded },
      { touched: [], nodeUndici: false, http2: false },
    );
    assert(result.exitLagMs < 1_000, `Node lingered ${result.exitLagMs} ms after the last response`);
  }

  try {
    await bundle(["lib/runtime/node/transport_probe.ts"], dir);

    await t.step("plain GET: status, JSON, repeated headers joined; no fetch, no undici, prompt exit", async () => {
      const result = await probe({ url: `${http}/json`, readHeaders: ["Content-Type", "x-multi", "x-none"] });
      direct(result);
      assertEquals([result.status, result.statusText], [200, "OK"]);
      assertEquals(result.headers, { "Content-Type": "application/json", "x-multi": "a, b", "x-none": null });
      assertEquals(JSON.parse(result.text!), { hello: "wörld" });
    });

    await t.step("a 204 has no body, and its connection is freed", async () => {
      const result = await probe({ url: `${http}/empty` });
      direct(result);
      assertEquals([result.status, result.bytes, result.error], [204, undefined, undefined]);
    });

    await t.step("control: a call to fetch shows in the same checks", async () => {
      const result = await probe({ url: `${http}/json`, fetchControl: true });
      assertEquals([result.touched, result.nodeUndiciLoaded], [["fetch"], true]);
    });

    await t.step("POST: string and bytes bodies carry content-length, a stream goes chunked", async () => {
      const text = "héllo ☃";
      for (const kind of ["string", "bytes"] as const) {
        const result = await probe({ url: `${http}/echo`, method: "POST", body: { kind, text } });
        direct(result);
        assertEquals(JSON.parse(result.text!), {
          method: "POST",
          contentLength: "10",
          transferEncoding: null,
          text,
          bytes: 10,
        });
      }
      const streamed = await probe({
        url: `${http}/echo`,
        method: "POST",
        body: { kind: "stream", chunks: 5, chunkSize: 1000 },
      });
      direct(streamed);
      assertEquals(JSON.parse(streamed.text!), {
        method: "POST",
        contentLength: null,
        transferEncoding: "chunked",
        text: "a".repeat(64),
        bytes: 5000,
      });
    });

    await t.step("a 100 MiB streamed upload holds backpressure: memory stays flat", async () => {
      const result = await probe({
        url: `${http}/upload`,
        method: "PUT",
        body: { kind: "stream", chunks: 100, chunkSize: MiB },
      });
      direct(result);
      assertEquals(JSON.parse(result.text!), { bytes: 100 * MiB });
      assert(result.maxRss! < 120 * MiB, `RSS reached ${result.maxRss! / MiB} MiB`);
    });

    await t.step("a 200 MiB download to a slow reader streams with flat memory", async () => {
      const result = await probe({
        url: `${http}/zeros?bytes=${200 * MiB}`,
        countOnly: true,
        pauseEveryBytes: 8 * MiB,
        pauseMs: 20,
      });
      direct(result);
      assertEquals(result.bytes, 200 * MiB);
      assert(result.maxRss! < 120 * MiB, `RSS reached ${result.maxRss! / MiB} MiB`);
    });

    await t.step("a paused reader holds the server back; cancel() closes the connection", async () => {
      state.pulled = 0;
      const cancelled = state.cancelled;
      const result = await probe({
        url: `${http}/zeros?bytes=${1024 * MiB}`,
        countOnly: true,
        pauseEveryBytes: 1,
        pauseMs: 1_000,
        cancelAfterBytes: 2,
      });
      direct(result);
      assert(state.pulled < 32 * MiB, `the server got ${state.pulled / MiB} MiB out while the reader paused`);
      await eventually(() => state.cancelled > cancelled, "the server saw the connection close");
    });

    await t.step("an abort mid-body errors the stream with the reason and closes the connection", async () => {
      const cancelled = state.cancelled;
      const result = await probe({ url: `${http}/endless`, countOnly: true, abortAfterBytes: 3 * 1024 });
      direct(result);
      assertEquals(result.error?.isReason, true, JSON.stringify(result.error));
      await eventually(() => state.cancelled > cancelled, "the server saw the connection close");
    });

    await t.step("an abort before the headers rejects with the reason", async () => {
      const result = await probe({ url: `${http}/stall`, abortAfterMs: 200 });
      direct(result);
      assertEquals([result.status, result.error?.isReason], [undefined, true]);
    });

    await t.step("a connection cut mid-body errors the stream as a reset", async () => {
      const result = await probe({ url: `http://127.0.0.1:${cutting.port}/`, countOnly: true });
      direct(result);
      assertEquals([result.status, result.bytes, result.error?.kind], [200, 1000, "reset"], result.error?.text);
    });

    await t.step("a refused connection is classified as refused", async () => {
      const result = await probe({ url: `http://127.0.0.1:${freePort()}/` });
      direct(result);
      assertEquals(result.error?.kind, "refused", result.error?.text);
      assertMatch(result.error!.text, /ECONNREFUSED/);
    });

    await t.step("TLS: a custom CA is trusted, by name and by IP; plain https stays off fetch", async () => {
      for (const url of [`${https}/json`, `https://127.0.0.1:${secure.addr.port}/json`]) {
        const result = await probe({ url, caCert: tls.cert });
        direct(result);
        assertEquals(JSON.parse(result.text!), { hello: "wörld" });
      }
    });

    await t.step("TLS: a self-signed certificate is refused as tls, accepted with insecure", async () => {
      const refused = await probe({ url: `${https}/json` });
      direct(refused);
      assertEquals(refused.error?.kind, "tls", refused.error?.text);
      assertMatch(refused.error!.text, /DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN/);
      const insecure = await probe({ url: `${https}/json`, insecure: true });
      direct(insecure);
      assertEquals(insecure.status, 200);
    });

    await t.step("TLS: a certificate for another name is refused as tls", async () => {
      const result = await probe({ url: `https://127.0.0.1:${misnamed.addr.port}/json`, caCert: other.cert });
      direct(result);
      assertEquals(result.error?.kind, "tls", result.error?.text);
      assertMatch(result.error!.text, /ERR_TLS_CERT_ALTNAME_INVALID/);
    });

    await t.step("TLS: with a custom CA, NODE_EXTRA_CA_CERTS stays trusted", async () => {
      const result = await probe({
        url: `${https}/json`,
        caCert: other.cert,
        env: { NODE_EXTRA_CA_CERTS: tls.certFile },
      });
      direct(result);
      assertEquals(result.status, 200, result.error?.text);
    });

    await t.step("a scheme that does not match the port is classified as protocol", async () => {
      const toTls = await probe({ url: `http://127.0.0.1:${secure.addr.port}/json` });
      const toPlain = await probe({ url: `https://127.0.0.1:${plain.addr.port}/json` });
      for (const result of [toTls, toPlain]) {
        direct(result);
        assertEquals(result.error?.kind, "protocol", result.error?.text);
      }
    });

    await t.step("HTTP_PROXY goes through undici's EnvHttpProxyAgent, NO_PROXY bypasses it", async () => {
      const target = `http://localhost:${plain.addr.port}/json`;
      const env = { HTTP_PROXY: `http://127.0.0.1:${proxy.addr.port}` };
      const through = await probe({ url: target, env: { ...env, NO_PROXY: "" } });
      assertEquals([through.status, proxied], [200, [target]]);
      // The control for the direct path's checks: npm undici loads node:http2.
      assertEquals(through.http2Loaded, true);
      const bypass = await probe({ url: target, env: { ...env, NO_PROXY: "localhost" } });
      assertEquals([bypass.status, proxied.length], [200, 1]);
    });
  } finally {
    release();
    cutting.close();
    await cutting.done;
    await Promise.all([plain.shutdown(), secure.shutdown(), misnamed.shutdown(), proxy.shutdown()]);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("classifyFailure() reads Deno's fetch errors for a scheme that does not match the port as protocol", {
  ignore: missingTools("openssl"),
}, async () => {
  const tls = await opensslCertificate();
  const quiet = { hostname: "127.0.0.1", port: 0, onListen() {} };
  const plain = Deno.serve(quiet, () => new Response("plain"));
  const secure = Deno.serve({ ...quiet, cert: tls.cert, key: tls.key }, () => new Response("secure"));
  try {
    for (const url of [`http://127.0.0.1:${secure.addr.port}/`, `https://127.0.0.1:${plain.addr.port}/`]) {
      const error = await fetch(url).then((r) => r.body?.cancel(), (e) => e);
      assertEquals(classifyFailure(error), "protocol", describeFailure(error));
    }
  } finally {
    await Promise.all([plain.shutdown(), secure.shutdown()]);
  }
});
