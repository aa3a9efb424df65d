import { assert, assertEquals, assertRejects } from "../../testing/assert.ts";
import {
  bodyTimeoutAnswer,
  ClientDisconnected,
  connectionCeiling,
  guardRequestBody,
  prereadBody,
  readSmallBody,
  RequestBodyTimeout,
  SMALL_BODY_BYTES,
  softDescriptorLimit,
} from "./serve_limits.ts";

const PROC_LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max processes             95711                95711                processes
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes`;

Deno.test("softDescriptorLimit() reads the soft open-file limit from /proc/self/limits", () => {
  assertEquals(softDescriptorLimit(PROC_LIMITS), 1024);
  assertEquals(
    softDescriptorLimit("Max open files            unlimited            unlimited            files"),
    undefined,
  );
  assertEquals(softDescriptorLimit(""), undefined);
});

Deno.test("connectionCeiling() keeps what fits and lowers what does not, saying so", () => {
  assertEquals(connectionCeiling(10_000, 20_000), { max: 10_000 });
  assertEquals(connectionCeiling(10_000, undefined), { max: 10_000 });
  const lowered = connectionCeiling(10_000, 1024);
  assertEquals(lowered.max, 960);
  assertEquals(
    lowered.warning,
    "MAX_CONNECTIONS 10000 does not fit the open-file limit of 1024; serving at most 960 connections " +
      "(raise the limit with `ulimit -n`, or lower MAX_CONNECTIONS)",
  );
});

/** A request body that sends `first` and then nothing, or fails with `error` after it. */
function stalledRequest(first: string, error?: Error): Request {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(first));
      if (error) setTimeout(() => controller.error(error), 10);
    },
  });
  return new Request("http://x/", { method: "POST", body, duplex: "half" } as RequestInit);
}

Deno.test("guardRequestBody() passes a body that arrives in time, and one without a body as it is", async () => {
  const guarded = guardRequestBody(new Request("http://x/", { method: "POST", body: "hello" }), 1000);
  assertEquals(await guarded.request.text(), "hello");
  assertEquals(guarded.timedOut(), false);
  const get = new Request("http://x/");
  assert(guardRequestBody(get, 1000).request === get);
});

Deno.test("guardRequestBody() passes TRACE and TRACK requests as they are: no Request can be built with them", () => {
  for (const method of ["TRACE", "TRACK", "CONNECT"]) {
    // As the server hands them over: a request of that method, with a body stream.
    const request = new Request("http://x/", { method: "POST", body: "x" });
    Object.defineProperty(request, "method", { value: method });
    assert(guardRequestBody(request, 1000).request === request, method);
  }
});

Deno.test("guardRequestBody() fails a body that does not end in time with RequestBodyTimeout", async () => {
  const guarded = guardRequestBody(stalledRequest("he"), 50);
  const error = await assertRejects(() => guarded.request.text(), /did not arrive within 50 ms/);
  assert(error instanceof RequestBodyTimeout, String(error));
  assertEquals(guarded.timedOut(), true);
});

Deno.test("guardRequestBody() turns a broken connection into ClientDisconnected", async () => {
  const guarded = guardRequestBody(stalledRequest("he", new Error("connection reset")), 5000);
  const error = await assertRejects(() => guarded.request.text(), /closed the connection before its request body/);
  assert(error instanceof ClientDisconnected && (error.cause as Error).message === "connection reset", String(error));
  assertEquals(guarded.timedOut(), false);
});

Deno.test("bodyTimeoutAnswer() keeps a handler's 408 and replaces anything else with a 408 problem", async () => {
  const lines: string[] = [];
  const log = (_level: string, line: string) => void lines.push(line);
  const own = bodyTimeoutAnswer(new Response("late", { status: 408 }), 50, log);
  assertEquals([own.status, own.headers.get("connection"), await own.text()], [408, "close", "late"]);
  const replaced = bodyTimeoutAnswer(new Response("Malformed JSON", { status: 400 }), 50, log);
  assertEquals([replaced.status, replaced.headers.get("content-type")], [408, "application/problem+json"]);
  const problem = await replaced.json();
  assertEquals([problem.title, problem.status, problem.detail], [
    "Request Timeout",
    408,
    "The request body did not arrive within 50 ms",
  ]);
  assertEquals(lines, [`408 traceId=${problem.traceId}: The request body did not arrive within 50 ms`]);
});

Deno.test("readSmallBody() reads a small body that says its length; leaves the others to the guard", async () => {
  const small = new Request("http://x/", { method: "POST", body: '{"a":1}', headers: { "content-length": "7" } });
  assertEquals(await readSmallBody(small, 1_000), "read");
  assertEquals(prereadBody(small), '{"a":1}');
  const big = new Request("http://x/", {
    method: "POST",
    body: "x".repeat(SMALL_BODY_BYTES + 1),
    headers: { "content-length": String(SMALL_BODY_BYTES + 1) },
  });
  assertEquals(await readSmallBody(big, 1_000), "other");
  assertEquals(prereadBody(big), undefined);
  const unsaid = new Request("http://x/", { method: "POST", body: "{}" });
  unsaid.headers.delete("content-length");
  assertEquals(await readSmallBody(unsaid, 1_000), "other");
});

Deno.test("readSmallBody() gives up on a body that stops short, after the timeout", async () => {
  const stalled = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("{"));
    },
  });
  const request = new Request("http://x/", {
    method: "POST",
    body: stalled,
    headers: { "content-length": "10" },
    duplex: "half",
  } as RequestInit);
  assertEquals(await readSmallBody(request, 50), "timeout");
  await stalled.cancel().catch(() => {});
});
