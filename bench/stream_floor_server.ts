/**
 * The floor of `stream_channels_bench.ts`: a bare server on the same runtime (`Deno.serve` on
 * Deno, `node:http` on Node, no Hono, no store) that answers the bench's requests as
 * `bench/stream_server.ts` does and, once `go` is posted, writes the same frames at the same
 * pace to every subscriber of the channel — each frame encoded once and written as it is to
 * each socket. What the service spends per frame above this is its own.
 *
 * `deno run -A bench/stream_floor_server.ts`, or the Node build of it (the bench builds it).
 *
 * @module
 */

type Write = (frame: Uint8Array) => void;

const encoder = new TextEncoder();
const channels = new Map<string, Set<Write>>();
let spray: { sessions: number; prefix: string; count: number; per_second: number } | undefined;

/** As `stream_server.ts`: yields at least every 16 frames, waits when ahead. */
async function pace(due: number, i: number) {
  const wait = due - performance.now();
  if (wait > 1 || i % 16 === 0) await new Promise((r) => setTimeout(r, Math.max(0, wait)));
}

async function run() {
  const input = spray!;
  const start = performance.now();
  for (let i = 0; i < input.count; i++) {
    await pace(start + (i * 1000) / input.per_second, i);
    const id = Math.floor(i / input.sessions) + 1;
    const message = String(performance.timeOrigin + performance.now());
    const frame = encoder.encode(
      `id: ${id}\nevent: token\ndata: ${JSON.stringify({ task_id: "floor", message })}\n\n`,
    );
    for (const write of channels.get(`${input.prefix}${i % input.sessions}`) ?? []) write(frame);
  }
}

/** What a request asks: a subscription to a session's stream, the spray task, or its `go`. */
function route(method: string, path: string): { stream: string } | "task" | "go" | undefined {
  const stream = path.match(/^\/sessions\/([^/]+)\/stream/);
  if (method === "GET" && stream) return { stream: stream[1] };
  if (method === "POST" && path === "/tasks") return "task";
  if (method === "POST" && /^\/tasks\/[^/]+\/input$/.test(path)) return "go";
  return undefined;
}

function subscribe(session: string, write: Write): () => void {
  let set = channels.get(session);
  if (!set) channels.set(session, set = new Set());
  set.add(write);
  write(encoder.encode("retry: 1000\n\n"));
  return () => set.delete(write);
}

const port = Number(globalThis.Deno ? Deno.env.get("PORT") ?? 0 : process.env.PORT ?? 0);
const listening = (p: number) => console.log(`listening on http://127.0.0.1:${p}`);

if (globalThis.Deno) {
  const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: ({ port }) => listening(port) }, async (req) => {
    const what = route(req.method, new URL(req.url).pathname);
    if (what === "task") {
      spray = { prefix: "s", ...(await req.json()).input };
      return Response.json({ task_id: "floor" }, { status: 201 });
    }
    if (what === "go") {
      void run();
      return Response.json({ ok: true });
    }
    if (!what) return new Response("not found", { status: 404 });
    let leave = () => {};
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => void (leave = subscribe(what.stream, (frame) => controller.enqueue(frame))),
      cancel: () => leave(),
    });
    return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  });
  Deno.addSignalListener("SIGTERM", async () => {
    await server.shutdown().catch(() => {});
    Deno.exit(0);
  });
} else {
  const { createServer } = await import("node:http");
  const server = createServer((req, res) => {
    const what = route(req.method!, new URL(req.url!, "http://x").pathname);
    if (what === "task" || what === "go") {
      let text = "";
      req.on("data", (chunk) => text += chunk);
      req.on("end", () => {
        if (what === "task") spray = { prefix: "s", ...JSON.parse(text).input };
        else void run();
        res.writeHead(what === "task" ? 201 : 200, { "content-type": "application/json" });
        res.end(JSON.stringify(what === "task" ? { task_id: "floor" } : { ok: true }));
      });
      return;
    }
    if (!what) return void res.writeHead(404).end("not found");
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const leave = subscribe(what.stream, (frame) => res.write(frame));
    res.on("close", leave);
  });
  server.listen(port, "127.0.0.1", () => listening((server.address() as { port: number }).port));
  process.on("SIGTERM", () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
