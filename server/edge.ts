/**
 * The edge entry (Cloudflare Workers and similar): `export default { fetch }`, backed by the
 * Upstash REST store from the `UPSTASH_REDIS_REST_URL` and `UPSTASH_REDIS_REST_TOKEN` bindings.
 * An edge deployment is public: it needs a `SERVICE_TOKENS` binding (the tokens file's JSON:
 * digests, no secret), or `ALLOW_ANONYMOUS=true` to run open on purpose.
 *
 * It answers to every `Host`, open or not: it is served under its platform's names (and any
 * custom domain), which it cannot know, and DNS rebinding gains nothing against a service that
 * anyone can call directly. An `ALLOWED_HOSTS` binding (`svc.example,.corp.example`) pins the
 * names, as the variable does for a server process.
 *
 * @module
 */
import { openStore } from "../lib/store/mod.ts";
import { createTokenSet, parseTokens } from "./auth/tokens.ts";
import { createApp } from "./mod.ts";
import { parseAllowedHosts } from "./allowed_hosts.ts";

type Bindings = Record<string, string | undefined>;

let app: Promise<ReturnType<typeof createApp>> | undefined;

export default {
  fetch(request: Request, env: Bindings = {}): Promise<Response> {
    app ??= (async () => {
      const url = env.UPSTASH_REDIS_REST_URL, token = env.UPSTASH_REDIS_REST_TOKEN;
      if (!url || !token) throw new Error("Set the UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN bindings");
      if (!env.SERVICE_TOKENS && env.ALLOW_ANONYMOUS !== "true") {
        throw new Error(
          "An edge deployment answers anyone: set the SERVICE_TOKENS binding (the tokens file's JSON), " +
            "or ALLOW_ANONYMOUS=true to run open on purpose",
        );
      }
      const tokens = env.SERVICE_TOKENS
        ? createTokenSet(parseTokens(env.SERVICE_TOKENS, { binding: "SERVICE_TOKENS" }))
        : undefined;
      const allowedHosts = env.ALLOWED_HOSTS
        ? parseAllowedHosts(env.ALLOWED_HOSTS, "The ALLOWED_HOSTS binding")
        : "any" as const;
      return createApp({
        store: await openStore({ upstash: { url, token }, prefix: env.STORE_KEY_PREFIX ?? "storectl:" }),
        auth: { tokens, allowedHosts },
      });
    })();
    return app.then((a) => a.fetch(request, env), (error) => {
      app = undefined; // try again on the next request
      throw error;
    });
  },
};
