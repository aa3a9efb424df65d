// The rate-limited route as a Fastify user would write it: @fastify/rate-limit with its Redis
// store (a fixed-window counter: one EVALSHA of INCR and PTTL or PEXPIRE per request) on
// ioredis, 10 requests per 30 s per Basic identity, 200 or 429.
// Run: STORE_URL=redis://127.0.0.1:6379 PORT=0 node bench/frameworks/fastify_server.mjs
// (after `npm ci` in bench/frameworks; bench/ratelimit_frameworks_bench.ts does both).
//
// Loaded with require(), for the reason given in express_server.mjs.
import { createRequire } from "node:module";
import { basicIdentity, LIMIT, ROUTE, WINDOW_MS } from "./identity.mjs";

const require = createRequire(import.meta.url);
const Fastify = require("fastify");
const rateLimit = require("@fastify/rate-limit");
const { Redis } = require("ioredis");

const redis = new Redis(process.env.STORE_URL);
const app = Fastify({ logger: false });
app.decorateRequest("identity", "");
// Before the plugin's own onRequest hook: no identity, no decision (401), as in the service.
app.addHook("onRequest", (request, reply, done) => {
  const identity = basicIdentity(request.headers.authorization);
  if (identity === undefined) return void reply.code(401).send(); // replied: done() is not called
  request.identity = identity;
  done();
});
await app.register(rateLimit, {
  max: LIMIT,
  timeWindow: WINDOW_MS,
  redis,
  enableDraftSpec: true, // IETF RateLimit-* headers, as the service sends
  keyGenerator: (request) => request.identity,
});
app.get(ROUTE, (_request, reply) => void reply.code(200).send());
const url = await app.listen({ port: Number(process.env.PORT ?? 0), host: "127.0.0.1" });
console.log(`@fastify/rate-limit listening on ${url}`);
process.on("SIGTERM", () => app.close().then(() => redis.quit()).finally(() => process.exit(0)));
