import { assertEquals } from "../../../testing/assert.ts";
import { type DirectSink, withDirectBody } from "../direct_body.ts";
import { nodeServe } from "./serve.ts";

const unread = () =>
  new ReadableStream<Uint8Array>({
    pull: () => {
      throw new Error("a direct body is not read");
    },
  });

Deno.test("nodeServe writes a direct body with its writer, after the response's status and headers", async () => {
  const attached: DirectSink[] = [];
  const listener = await nodeServe({
    port: 0,
    fetch: (request) => {
      if (new URL(request.url).pathname === "/plain") return new Response("read as usual", { status: 202 });
      const headers = new Headers({ "content-type": "text/event-stream", "x-kind": "direct" });
      headers.append("set-cookie", "a=1");
      headers.append("set-cookie", "b=2");
      return withDirectBody(new Response(unread(), { status: 201, headers }), (sink) => {
        attached.push(sink);
        sink.write(new TextEncoder().encode("data: one\n\n"));
        setTimeout(() => { // later, as events come
          sink.write(new TextEncoder().encode("data: two\n\n"));
          sink.end();
        }, 10);
      });
    },
  });
  try {
    const res = await fetch(`${listener.url}/events`);
    assertEquals([res.status, res.headers.get("x-kind"), res.headers.getSetCookie()], [201, "direct", ["a=1", "b=2"]]);
    assertEquals(await res.text(), "data: one\n\ndata: two\n\n");
    assertEquals(attached.length, 1);
    const plain = await fetch(`${listener.url}/plain`);
    assertEquals([plain.status, await plain.text()], [202, "read as usual"]);
  } finally {
    await listener.close();
  }
});

Deno.test("a direct body's sink closes when the client leaves mid-stream", async () => {
  let closed!: () => void;
  const gone = new Promise<void>((resolve) => closed = resolve);
  const listener = await nodeServe({
    port: 0,
    fetch: () =>
      withDirectBody(new Response(unread()), (sink) => {
        sink.on("close", closed);
        sink.write(new TextEncoder().encode("data: first\n\n"));
      }),
  });
  try {
    const controller = new AbortController();
    const res = await fetch(listener.url, { signal: controller.signal });
    const reader = res.body!.getReader();
    assertEquals(new TextDecoder().decode((await reader.read()).value), "data: first\n\n");
    controller.abort();
    await gone;
  } finally {
    await listener.close();
  }
});
