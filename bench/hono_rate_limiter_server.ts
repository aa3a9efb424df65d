/**
 * The comparison server: the same route limited by `hono-rate-limiter` (a fixed window) with
 * its Redis store, on ioredis. Started by `ratelimit_bench.ts`: `STORE_URL=redis://… PORT=0`.
 *
 * @module
 */
import { Hono } from "hono";
import { rateLimiter, RedisStore } from "hono-rate-limiter";
import { Redis } from "ioredis";
import { loadRuntime } from "../lib/runtime/mod.ts";

const redis = new Redis(Deno.env.get("STORE_URL")!);
const client = {
  scriptLoad: (script: string) => redis.script("LOAD", script) as Promise<string>,
  evalsha: <A extends unknown[], D>(sha: string, keys: string[], args: A) =>
    redis.evalsha(sha, keys.length, ...keys, ...(args as (string | number)[])) as Promise<D>,
  decr: (key: string) => redis.decr(key),
  del: (key: string) => redis.del(key),
};
const app = new Hono();
app.use(
  "/api/RateLimited/sliding",
  rateLimiter({
    windowMs: 30_000,
    limit: 10,
    keyGenerator: (c) => atob((c.req.header("authorization") ?? "").replace(/^Basic /, "")).split(":")[0],
    store: new RedisStore({ client }),
  }),
);
app.get("/api/RateLimited/sliding", (c) => c.body(null, 200));
const listener = await (await loadRuntime()).serve({ port: Number(Deno.env.get("PORT") ?? 0), fetch: app.fetch });
console.log(`hono-rate-limiter listening on ${listener.url}`);
