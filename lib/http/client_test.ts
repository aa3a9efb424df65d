import { assert, assertEquals, assertMatch, assertRejects } from "../../testing/assert.ts";
import { opensslCertificate } from "../../testing/certs.ts";
import { missingTools } from "../../testing/tools.ts";
import { StoreCtlError } from "../errors/mod.ts";
import { tlsCause } from "./classify.ts";
import { createHttpClient, type HttpClientOptions } from "./client.ts";
import { DEFAULT_RETRY_POLICY, isRetryable, isTransient, retryDelay } from "./retry.ts";
import { readText } from "./transport.ts";
import { runtime } from "../runtime/deno.ts";
import { toCurl } from "./curl.ts";

/** Serves `handler` on a free loopback port for the test's duration. */
async function withServer(
  handler: (request: Request) => Response | Promise<Response>,
  fn: (url: string) => Promise<void>,
  tls?: { cert: string; key: string },
) {
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen() {},
    ...(tls && { cert: tls.cert, key: tls.key }),
  }, handler);
  try {
    await fn(`${tls ? "https://localhost" : "http://127.0.0.1"}:${server.addr.port}`);
  } finally {
    await server.shutdown();
  }
}

async function client(baseUrl: string, overrides: Partial<HttpClientOptions> = {}) {
  const sleeps: number[] = [];
  const http = createHttpClient({
    baseUrl,
    authHeaders: { "x-api-key": "key" },
    identity: "profile 'test' (key abcd…wxyz)",
    transport: await runtime.createTransport({ env: {} }),
    timeoutMs: 2000,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    random: () => 0.5,
    ...overrides,
  });
  return { http, sleeps };
}

Deno.test("send() retries GET on 503 with backoff and honours Retry-After", async () => {
  let calls = 0;
  await withServer((req) => {
    calls++;
    assertEquals(req.headers.get("x-api-key"), "key");
    if (calls === 1) return new Response("busy", { status: 503 });
    if (calls === 2) return new Response("slow down", { status: 429, headers: { "retry-after": "2" } });
    return Response.json({ ok: true });
  }, async (url) => {
    const { http, sleeps } = await client(url);
    const res = await http.send({ method: "GET", path: "/v1/x" });
    assertEquals(JSON.parse(await readText(res)), { ok: true });
    assertEquals(sleeps, [188, 2000]);
  });
});

Deno.test("send() does not retry POST on 503, and reports the server's message", async () => {
  let calls = 0;
  await withServer(() => {
    calls++;
    return Response.json({ message: "maintenance" }, { status: 503 });
  }, async (url) => {
    const { http } = await client(url);
    const error = await assertRejects(() => http.send({ method: "POST", path: "/v1/x", body: "{}" }));
    assertEquals([(error as StoreCtlError).code, (error as StoreCtlError).status, calls], ["api", 503, 1]);
    assertMatch(error.message, /POST \/v1\/x failed with HTTP 503: maintenance/);
  });
});

Deno.test("send() maps 400, 401, 404, 409 and 429 to codes and messages", async () => {
  const bodies: Record<string, [number, unknown]> = {
    "/bad": [400, { status: 400, error: "Bad Request", message: "Field 'name' is required" }],
    "/auth": [401, { error_code: "unauthorized", message: "Authentication failed" }],
    "/auth2": [401, { error_code: "unauthorized", message: "Authentication failed: wrong password" }],
    "/missing": [404, { error_code: "not_found", message: "bdb '9' does not exist" }],
    "/dup": [409, { error_code: "conflict", message: "name exists" }],
    "/busy": [429, { message: "too many" }],
  };
  await withServer((req) => {
    const [status, body] = bodies[new URL(req.url).pathname];
    return Response.json(body, { status, headers: status === 429 ? { "retry-after": "0" } : {} });
  }, async (url) => {
    const { http } = await client(url);
    const failure = async (path: string) =>
      await assertRejects(() => http.send({ method: "GET", path })) as StoreCtlError;
    const bad = await failure("/bad");
    assertEquals([bad.code, bad.message], ["validation", "Field 'name' is required"]);
    const auth = await failure("/auth");
    assertEquals([auth.code, auth.message], [
      "auth",
      "Authentication failed for profile 'test' (key abcd…wxyz)",
    ]);
    // The server's words that repeat ours are said once.
    const auth2 = await failure("/auth2");
    assertEquals(auth2.message, "Authentication failed for profile 'test' (key abcd…wxyz): wrong password");
    const missing = await failure("/missing");
    assertEquals([missing.code, missing.message], ["not_found", "Not found: GET /missing: bdb '9' does not exist"]);
    assertEquals((await failure("/dup")).code, "conflict");
    const busy = await failure("/busy");
    assertEquals(busy.code, "rate_limited");
    assertMatch(busy.message, /HTTP 429 after 4 attempts/);
  });
});

Deno.test("send() names the URL and cause when the connection is refused, after retrying", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const { http, sleeps } = await client(`http://127.0.0.1:${port}`);
  const error = await assertRejects(() => http.send({ method: "POST", path: "/v1/bdbs", body: "{}" })) as StoreCtlError;
  assertEquals(error.code, "network");
  assertEquals(error.message, `Failed to connect to http://127.0.0.1:${port}/v1/bdbs: connection refused`);
  assertEquals(sleeps.length, 3, "a POST that never reached the server is retried");
});

Deno.test("send() times out waiting for headers, and while the body is silent", async () => {
  await withServer(async (req) => {
    if (new URL(req.url).pathname === "/headers") await new Promise((r) => setTimeout(r, 1000));
    const body = new ReadableStream({
      async start(c) {
        c.enqueue(new TextEncoder().encode("partial"));
        await new Promise((r) => setTimeout(r, 1000));
        c.close();
      },
    });
    return new Response(body);
  }, async (url) => {
    const { http } = await client(url, { timeoutMs: 200, retry: { ...DEFAULT_RETRY_POLICY, retries: 0 } });
    const late = await assertRejects(() => http.send({ method: "GET", path: "/headers" })) as StoreCtlError;
    assertEquals(late.code, "timeout");
    const res = await http.send({ method: "GET", path: "/body" });
    const silent = await assertRejects(() => readText(res)) as StoreCtlError;
    assertMatch(String(silent.message ?? silent), /sent nothing for 0.2 s/);
  });
});

Deno.test("send() with firstByteTimeoutMs: the first byte may take that long, later silences only timeoutMs", async () => {
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  await withServer(async (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/late-headers") await pause(500);
    const body = new ReadableStream({
      async start(c) {
        if (path === "/late-body") await pause(500);
        c.enqueue(new TextEncoder().encode("first"));
        if (path === "/stalls-after") await pause(500);
        c.close();
      },
    });
    return new Response(body);
  }, async (url) => {
    const { http } = await client(url, { timeoutMs: 200, retry: { ...DEFAULT_RETRY_POLICY, retries: 0 } });
    const patient = { method: "GET", firstByteTimeoutMs: 2000 };
    assertEquals(await readText(await http.send({ ...patient, path: "/late-headers" })), "first");
    assertEquals(await readText(await http.send({ ...patient, path: "/late-body" })), "first");
    const idle = await assertRejects(async () => readText(await http.send({ ...patient, path: "/stalls-after" })));
    assertMatch(idle.message, /sent nothing for 0.2 s/);
    const short = { method: "GET", firstByteTimeoutMs: 300 };
    for (const path of ["/late-headers", "/late-body"]) {
      const late = await assertRejects(async () => readText(await http.send({ ...short, path }))) as StoreCtlError;
      assertEquals([late.code, late.reason], ["timeout", "first_byte_timeout"], path);
      assertEquals(late.message, `${url}${path} sent nothing within 0.3 s of being asked`);
    }
  });
});

Deno.test("TLS: a self-signed server fails with both fixes named, then works insecure or trusted", {
  ignore: missingTools("openssl"),
}, async () => {
  const tls = await opensslCertificate();
  await withServer(() => Response.json({ secure: true }), async (url) => {
    const strict = await client(url);
    const error = await assertRejects(() => strict.http.send({ method: "GET", path: "/v1/cluster" })) as StoreCtlError;
    assertEquals(error.code, "tls");
    // The cause in words, without the runtime's chain ("fetch failed: error sending request…").
    assertMatch(
      error.message,
      /^TLS certificate verification failed for https:\/\/localhost:\d+\/v1\/cluster: the server's certificate is signed by no authority this machine trusts \(self-signed, or a private CA\)$/,
    );
    const insecure = await client(url, { transport: await runtime.createTransport({ env: {}, insecure: true }) });
    assertEquals(await readText(await insecure.http.send({ method: "GET", path: "/" })).then(JSON.parse), {
      secure: true,
    });
    const trusted = await client(url, { transport: await runtime.createTransport({ env: {}, caCert: tls.cert }) });
    assertEquals(await readText(await trusted.http.send({ method: "GET", path: "/" })).then(JSON.parse), {
      secure: true,
    });
  }, tls);
});

Deno.test("retryDelay() uses jittered backoff, Retry-After seconds or dates, and gives up on long waits", () => {
  const p = DEFAULT_RETRY_POLICY;
  assertEquals([
    retryDelay(0, null, p, 0, () => 1),
    retryDelay(3, null, p, 0, () => 1),
    retryDelay(9, null, p, 0, () => 1),
  ], [250, 2000, 8000]);
  // Never at once: at least half the step.
  assertEquals([retryDelay(0, null, p, 0, () => 0), retryDelay(3, null, p, 0, () => 0)], [125, 1000]);
  assertEquals(retryDelay(0, "3", p, 0, () => 1), 3000);
  assertEquals(retryDelay(0, new Date(10_000).toUTCString(), p, 4_000, () => 1), 6000);
  assertEquals(retryDelay(0, "3600", p, 0, () => 1), undefined);
});

Deno.test("isRetryable() repeats safe methods and connection failures only", () => {
  assert(isRetryable("GET", { kind: "status", status: 502 }) && isRetryable("DELETE", { kind: "reset" }));
  assert(!isRetryable("POST", { kind: "status", status: 503 }) && !isRetryable("POST", { kind: "reset" }));
  assert(isRetryable("POST", { kind: "connect" }) && !isRetryable("GET", { kind: "status", status: 500 }));
});

Deno.test("toCurl() redacts secrets and quotes for the shell", () => {
  assertEquals(
    toCurl(
      "post",
      "https://h/v1/bdbs",
      { authorization: "Basic abc", "x-api-key": "k", "content-type": "application/json" },
      `{"name":"it's"}`,
      { insecure: true },
    ),
    `curl -k -X POST 'https://h/v1/bdbs' -H 'authorization: Basic ***' -H 'x-api-key: ***' -H 'content-type: application/json' --data-binary '{"name":"it'\\''s"}'`,
  );
});

Deno.test("send() names the scheme mistake: http to a TLS port, https to a plain one", {
  ignore: missingTools("openssl"),
}, async () => {
  const tls = await opensslCertificate();
  const once = { retry: { ...DEFAULT_RETRY_POLICY, retries: 0 } };
  await withServer(() => Response.json({}), async (url) => {
    const { http } = await client(url.replace("https:", "http:"), once);
    const error = await assertRejects(() => http.send({ method: "GET", path: "/v1/cluster" })) as StoreCtlError;
    assertEquals(error.code, "config");
    assertMatch(
      error.message,
      /^localhost:\d+ did not answer with plain HTTP: it looks like a TLS port\. Did you mean https:\/\/localhost:\d+\/v1\/cluster\?$/,
    );
  }, tls);
  await withServer(() => Response.json({}), async (url) => {
    const { http } = await client(url.replace("http:", "https:"), once);
    const error = await assertRejects(() => http.send({ method: "GET", path: "/v1/cluster" })) as StoreCtlError;
    assertEquals(error.code, "config");
    assertMatch(
      error.message,
      /^127\.0\.0\.1:\d+ did not answer with TLS: it looks like a plain HTTP port\. Did you mean http:\/\/127\.0\.0\.1:\d+\/v1\/cluster\?$/,
    );
  });
});

Deno.test("isTransient() is the one rule for failures worth trying again later", () => {
  const status = (code: number) =>
    new StoreCtlError(code === 429 ? "rate_limited" : "api", `HTTP ${code}`, { status: code });
  assertEquals([429, 500, 502, 503, 504].map((code) => isTransient(status(code))), [true, true, true, true, true]);
  assertEquals([400, 401, 404, 409, 501].map((code) => isTransient(status(code))), [false, false, false, false, false]);
  assertEquals(
    [isTransient(new StoreCtlError("network", "reset")), isTransient(new StoreCtlError("timeout", "slow"))],
    [
      true,
      true,
    ],
  );
  assertEquals([isTransient(new Error("x")), isRetryable("GET", { kind: "status", status: 500 })], [false, false]);
});

Deno.test("tlsCause() says why a certificate was refused, in the same words for Deno's and Node's errors", () => {
  const deno = (name: string) =>
    new TypeError("fetch failed", {
      cause: new Error(
        `error sending request for url (https://x/): client error (Connect): invalid peer certificate: ${name}`,
      ),
    });
  const node = (code: string, message: string) =>
    new TypeError("fetch failed", { cause: Object.assign(new Error(message), { code }) });
  const untrusted =
    "the server's certificate is signed by no authority this machine trusts (self-signed, or a private CA)";
  const cases: [unknown, string][] = [
    [deno("UnknownIssuer"), untrusted],
    [node("DEPTH_ZERO_SELF_SIGNED_CERT", "self-signed certificate"), untrusted],
    [node("SELF_SIGNED_CERT_IN_CHAIN", "self-signed certificate in certificate chain"), untrusted],
    [node("UNABLE_TO_VERIFY_LEAF_SIGNATURE", "unable to verify the first certificate"), untrusted],
    [deno("NotValidForName"), "the server's certificate is not made out for this host name"],
    [
      node("ERR_TLS_CERT_ALTNAME_INVALID", "Hostname/IP does not match certificate's altnames"),
      "the server's certificate is not made out for this host name",
    ],
    [deno("Expired"), "the server's certificate has expired"],
    [node("CERT_HAS_EXPIRED", "certificate has expired"), "the server's certificate has expired"],
    [deno("NotValidYet"), "the server's certificate is not valid yet (is this machine's clock right?)"],
    [node("CERT_REVOKED", "certificate revoked"), "the server's certificate has been revoked"],
    [deno("BadSignature"), "BadSignature"],
    [deno("Other(OtherError(SomethingNew))"), "SomethingNew"],
  ];
  for (const [error, words] of cases) assertEquals(tlsCause(error), words);
});
