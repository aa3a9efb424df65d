/**
 * The floor for `stream_bench.ts`'s idle streams: a bare `Deno.serve` answering every request
 * with a `text/event-stream` that sends one frame and then stays open — no Hono, no store.
 *
 * @module
 */
const server = Deno.serve({
  hostname: "127.0.0.1",
  port: Number(Deno.env.get("PORT") ?? 0),
  onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}`),
}, (req) => {
  if (req.method === "POST") return Response.json({ task_id: "floor" }, { status: 201 });
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("retry: 1000\n\n"));
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
});
Deno.addSignalListener("SIGTERM", async () => {
  await server.shutdown().catch(() => {});
  Deno.exit(0);
});
