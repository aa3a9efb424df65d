/**
 * The edge entry (Cloudflare Workers and similar): `export default { fetch }`, backed by the
 * Upstash REST store from the `UPSTASH_REDIS_REST_URL` and `UPSTASH_REDIS_REST_TOKEN` bindings.
 *
 * @module
 */
import { openStore } from "../lib/store/mod.ts";
import { createApp } from "./mod.ts";

type Bindings = Record<string, string | undefined>;

let app: Promise<ReturnType<typeof createApp>> | undefined;

export default {
  fetch(request: Request, env: Bindings = {}): Promise<Response> {
    app ??= (async () => {
      const url = env.UPSTASH_REDIS_REST_URL, token = env.UPSTASH_REDIS_REST_TOKEN;
      if (!url || !token) throw new Error("Set the UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN bindings");
      return createApp({
        store: await openStore({ upstash: { url, token }, prefix: env.STORE_KEY_PREFIX ?? "storectl:" }),
      });
    })();
    return app.then((a) => a.fetch(request, env), (error) => {
      app = undefined; // try again on the next request
      throw error;
    });
  },
};
