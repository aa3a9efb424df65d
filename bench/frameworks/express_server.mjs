// The rate-limited route as an Express user would write it: express-rate-limit with
// rate-limit-redis (a fixed-window counter: one EVALSHA of PTTL + INCR, or SET … PX, per
// request) on ioredis, 10 requests per 30 s per Basic identity, 200 or 429.
// Run: STORE_URL=redis://127.0.0.1:6379 PORT=0 node bench/frameworks/express_server.mjs
// (after `npm ci` in bench/frameworks; bench/ratelimit_frameworks_bench.ts does both).
//
// The packages are loaded with require(): an `import "express"` would make `deno check .` at the
// repository's root look for them in deno.json, and they belong to this folder's package.json.
import { createRequire } from "node:module";
import { basicIdentity, LIMIT, ROUTE, WINDOW_MS } from "./identity.mjs";

const require = createRequire(import.meta.url);
const express = require("express");
const { rateLimit } = require("express-rate-limit");
const { RedisStore } = require("rate-limit-redis");
const { Redis } = require("ioredis");

const redis = new Redis(process.env.STORE_URL);
const app = express();
app.get(
  ROUTE,
  (request, response, next) => {
    const identity = basicIdentity(request.get("authorization"));
    if (identity === undefined) return void response.status(401).end();
    response.locals.identity = identity;
    next();
  },
  rateLimit({
    windowMs: WINDOW_MS,
    limit: LIMIT,
    standardHeaders: "draft-8", // RateLimit-Policy and RateLimit, as the service sends
    legacyHeaders: false,
    keyGenerator: (_request, response) => response.locals.identity,
    store: new RedisStore({ sendCommand: (command, ...args) => redis.call(command, ...args) }),
  }),
  (_request, response) => void response.status(200).end(),
);
const server = app.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  console.log(`express-rate-limit listening on http://127.0.0.1:${server.address().port}`);
});
process.on("SIGTERM", () => server.close(() => redis.quit().finally(() => process.exit(0))));
