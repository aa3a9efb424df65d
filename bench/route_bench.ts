/**
 * In-process cost of the rate-limited route against the plain `GET /` (no sockets, no load
 * generator): `deno bench bench/route_bench.ts`.
 *
 * @module
 */
import { createMemoryStore } from "../lib/store/mod.ts";
import { createApp, createService, loadServerConfig } from "../server/mod.ts";

const app = createApp(createService(loadServerConfig({}), { store: createMemoryStore(), log: () => {} }));
let n = 0;

Deno.bench("plain GET /", { baseline: true, group: "route" }, async () => {
  await (await app.request("/")).arrayBuffer();
});

Deno.bench("rate-limited GET, a new identity each time (memory store)", { group: "route" }, async () => {
  const auth = `Basic ${btoa(`user-${n++}:secret`)}`;
  await (await app.request("/api/RateLimited/sliding", { headers: { authorization: auth } })).arrayBuffer();
});
