/**
 * The service with one extra task kind for `stream_bench.ts`: `ticker` waits for input, then
 * emits `count` tokens at `per_second`, each token the emit time (`performance.timeOrigin +
 * performance.now()`, ms) so subscribers can measure delivery latency. Settings as `server/main.ts`
 * (`STORE_URL`, `PORT`).
 *
 * @module
 */
import { z } from "zod";
import { openStore } from "../lib/store/mod.ts";
import { createTaskRunner, defineTask, demoTask } from "../lib/tasks/mod.ts";
import { createApp } from "../server/mod.ts";

const ticker = defineTask({
  kind: "ticker",
  input: z.object({ count: z.number().int().min(1), per_second: z.number().min(1) }),
  async run(ctx, input) {
    await ctx.requestInput("go");
    const start = performance.now();
    for (let i = 0; i < input.count; i++) {
      const due = start + (i * 1000) / input.per_second;
      const wait = due - performance.now();
      // Yield to the event loop as a model streaming over the network would, at least every 16 tokens.
      if (wait > 1 || i % 16 === 0) await new Promise((r) => setTimeout(r, Math.max(0, wait)));
      await ctx.token(String(performance.timeOrigin + performance.now()));
    }
    return "ticked";
  },
});

const store = await openStore({ url: Deno.env.get("STORE_URL") ?? "memory:", prefix: `bench-${crypto.randomUUID()}:` });
const tasks = createTaskRunner({ store, definitions: [demoTask, ticker] });
const app = createApp({ store, tasks, log: () => {} });
const server = Deno.serve({
  hostname: "127.0.0.1",
  port: Number(Deno.env.get("PORT") ?? 0),
  onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}`),
}, app.fetch);
Deno.addSignalListener("SIGTERM", async () => {
  await server.shutdown().catch(() => {});
  await tasks.close();
  await store.close();
  Deno.exit(0);
});
