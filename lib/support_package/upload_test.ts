import { assertEquals, assertMatch, assertRejects } from "../../testing/assert.ts";
import { fetchTransport, type RetryEvent } from "../http/mod.ts";
import { createLogger } from "../output/mod.ts";
import { redact, uploadPackage } from "./upload.ts";

Deno.test("uploadPackage() never shows a presigned part URL's query, in errors or in -vv logs", async () => {
  const lines: string[] = [];
  const signed = "https://bucket.test/part-1?X-Amz-Signature=sig-0123456789&X-Amz-Expires=900";
  const handler = (request: Request) => {
    if (request.url.includes("begin_upload")) return Response.json([{ ref: "r1", upload_uri: signed }]);
    return new Response("nope", { status: 500 });
  };
  const error = await assertRejects(() =>
    uploadPackage({
      baseUrl: "https://files.test/api/rest/v1",
      key: "k",
      folder: "up",
      name: "p.tgz",
      body: new Blob(["bytes"]).stream(),
      settings: {
        transport: fetchTransport((input, init) => Promise.resolve(handler(new Request(input, init)))),
        timeoutMs: 5000,
        retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1 },
        logger: createLogger({ verbosity: 2, write: (line) => lines.push(line) }),
      },
    })
  );
  assertMatch(error.message, /PUT https:\/\/bucket\.test\/part-1\?… failed with HTTP 500/);
  assertEquals(error.message.includes("sig-0123456789"), false);
  assertEquals(lines.some((line) => line.includes("bucket.test")), true);
  assertEquals(lines.filter((line) => line.includes("sig-0123456789")), []);
});

Deno.test("uploadPackage() reports the HTTP client's retries through its settings, with part URLs redacted", async () => {
  const signed = "https://bucket.test/part-1?X-Amz-Signature=sig-0123456789";
  let failures = 1;
  const handler = (request: Request) => {
    const url = new URL(request.url);
    if (url.pathname.includes("begin_upload")) return Response.json([{ ref: "r1", upload_uri: signed }]);
    if (url.host === "bucket.test") {
      return failures-- > 0 ? new Response("busy", { status: 503 }) : new Response(null, { status: 200 });
    }
    return Response.json({ size: 5 });
  };
  const retries: RetryEvent[] = [];
  const result = await uploadPackage({
    baseUrl: "https://files.test/api/rest/v1",
    key: "k",
    folder: "up",
    name: "p.tgz",
    body: new Blob(["bytes"]).stream(),
    settings: {
      transport: fetchTransport((input, init) => Promise.resolve(handler(new Request(input, init)))),
      timeoutMs: 5000,
      retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1 },
      onRetry: (event) => retries.push(event),
    },
  });
  assertEquals([result.parts, result.size], [1, 5]);
  assertEquals(retries.map((e) => [e.method, e.url, e.reason, e.retry]), [
    ["PUT", "https://bucket.test/part-1?…", "HTTP 503", 1],
  ]);
});

Deno.test("redact() cuts the query of every URL and leaves other text alone", () => {
  assertEquals(
    redact("GET https://a.test/x?sig=1 → 500 (http://b.test/y?z)"),
    "GET https://a.test/x?… → 500 (http://b.test/y?…)",
  );
  assertEquals(redact("no url? fine"), "no url? fine");
});
