/**
 * The web service as a Hono app, independent of the runtime that serves it.
 *
 * @example
 * ```ts
 * import { createApp } from "./server/mod.ts";
 * import { createMemoryStore } from "./lib/store/mod.ts";
 * const app = createApp({ store: createMemoryStore() });
 * const res = await app.request("/health"); // {"status":"healthy","store":"memory"}
 * ```
 *
 * @module
 */
import { Hono } from "hono";
import type { Store } from "../lib/store/mod.ts";

/** What the app is built from; entries build the real ones, tests their own. */
export interface ServerDeps {
  readonly store: Store;
}

/** Builds the service. */
export function createApp(deps: ServerDeps): Hono {
  const app = new Hono();
  app.get("/health", async (c) => {
    try {
      await deps.store.ping();
      return c.json({ status: "healthy", store: deps.store.kind });
    } catch (error) {
      return c.json({ status: "unhealthy", store: deps.store.kind, cause: (error as Error).message }, 503);
    }
  });
  return app;
}
