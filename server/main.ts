/**
 * Starts the service on Deno, or on Node from the bundle: `deno task server`.
 * Settings come from the environment: `PORT` (default 8080), `HOST` (default 127.0.0.1),
 * `STORE_URL` (default `memory:`).
 *
 * @module
 */
import { env, exit, onShutdownSignal, serve } from "../lib/runtime/mod.ts";
import { createMemoryStore } from "../lib/store/mod.ts";
import { createApp } from "./mod.ts";

const portText = env("PORT") ?? "8080";
const hostname = env("HOST") ?? "127.0.0.1";
const storeUrl = env("STORE_URL") ?? "memory:";
if (!/^\d+$/.test(portText) || Number(portText) > 65535) {
  console.error(`PORT must be a whole number from 0 to 65535, got '${portText}'`);
  exit(2);
}
const port = Number(portText);
if (storeUrl !== "memory:") {
  console.error(`STORE_URL '${storeUrl}' is not supported yet; only the embedded store 'memory:' is.`);
  exit(2);
}

const store = createMemoryStore();
const listener = await serve({ hostname, port, fetch: createApp({ store }).fetch });
console.log(`storectl server listening on ${listener.url} (store: ${store.kind})`);
onShutdownSignal(async () => {
  await listener.close();
  await store.close();
  exit(0);
});
