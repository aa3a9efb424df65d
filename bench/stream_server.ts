/**
 * The service with two extra task kinds for the stream benchmarks. `ticker` waits for input,
 * then emits `count` tokens at `per_second`, each token the emit time (`performance.timeOrigin +
 * performance.now()`, ms) so subscribers can measure delivery latency, then `pad` characters of
 * padding. `spray` waits for input, then appends `count` such tokens at `per_second` to the
 * channels of the sessions `<prefix>0` … `<prefix><sessions - 1>` in turn (many busy channels
 * with one task). Settings as `server/main.ts` (`STORE_URL`, `PORT`, `STREAM_BUFFER_BYTES`).
 * Runs on Deno, and on Node once bundled (`stream_channels_bench.ts --backends node-redis,…`
 * builds it), with the runtime's own listener as `server/main.ts` uses.
 *
 * @module
 */
import { z } from "zod";
import { loadRuntime } from "../lib/runtime/mod.ts";
import { openStore } from "../lib/store/mod.ts";
import { defineTask, sessionChannel } from "../lib/tasks/mod.ts";
import { createApp, createService, loadServerConfig } from "../server/mod.ts";

const ticker = defineTask({
  kind: "ticker",
  input: z.object({
    count: z.number().int().min(1),
    per_second: z.number().min(1),
    /** Characters of padding after each token's time (a busier stream in bytes). */
    pad: z.number().int().min(0).max(1_000_000).default(0),
  }),
  async run(ctx, input) {
    await ctx.requestInput("go");
    const padding = input.pad > 0 ? ` ${"x".repeat(input.pad)}` : "";
    const start = performance.now();
    for (let i = 0; i < input.count; i++) {
      await pace(start + (i * 1000) / input.per_second, i);
      await ctx.token(String(performance.timeOrigin + performance.now()) + padding);
    }
    return "ticked";
  },
});

/** Waits until `due` (`performance.now()` ms), yielding to the event loop at least every 16 calls as a model streaming over the network would. */
async function pace(due: number, i: number) {
  const wait = due - performance.now();
  if (wait > 1 || i % 16 === 0) await new Promise((r) => setTimeout(r, Math.max(0, wait)));
}

const spray = defineTask({
  kind: "spray",
  input: z.object({
    sessions: z.number().int().min(1),
    prefix: z.string().default("s"),
    count: z.number().int().min(1),
    per_second: z.number().min(1),
  }),
  async run(ctx, input) {
    await ctx.requestInput("go");
    const start = performance.now();
    for (let i = 0; i < input.count; i++) {
      await pace(start + (i * 1000) / input.per_second, i);
      const message = String(performance.timeOrigin + performance.now());
      await store.events.append(sessionChannel(`${input.prefix}${i % input.sessions}`), "token", {
        task_id: ctx.taskId,
        message,
      }, 10_000);
    }
    return "sprayed";
  },
});

const runtime = await loadRuntime();
const env = runtime.env();
const store = await openStore({ url: env.STORE_URL ?? "memory:", prefix: `bench-${crypto.randomUUID()}:` });
const config = loadServerConfig({ STREAM_BUFFER_BYTES: env.STREAM_BUFFER_BYTES });
const service = createService(config, { store, kinds: [ticker, spray], log: () => {} });
service.start();
const app = createApp(service);
const listener = await runtime.serve({
  hostname: "127.0.0.1",
  port: Number(env.PORT ?? 0),
  fetch: app.fetch,
  limits: { shutdownTimeoutMs: 1_000 },
});
console.log(`listening on ${listener.url}`);
runtime.onTerminate(async () => {
  await listener.close().catch(() => {});
  await service.close();
  runtime.exit(0);
});
