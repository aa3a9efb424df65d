/**
 * The edge entry (Cloudflare Workers and similar): `export default { fetch }`, backed by the
 * Upstash REST store of the `UPSTASH_REDIS_REST_URL` and `UPSTASH_REDIS_REST_TOKEN` bindings.
 * Every other binding is the variable of the same name (`TASK_RETENTION_SECONDS`,
 * `TENANT_MAX_LIVE_TASKS`, …), read through the service's one configuration schema, except
 * `SERVICE_TOKENS`, the tokens file's JSON itself (digests, no secret). An edge deployment is
 * public: it needs `SERVICE_TOKENS`, or `ALLOW_ANONYMOUS=true` to run open on purpose.
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
import { loadServerConfig } from "./config.ts";
import { createApp } from "./mod.ts";
import { createService, type Service } from "./service.ts";

type Bindings = Record<string, string | undefined>;

/** An edge entry: its service is made from the bindings of the first request, and again after a failure. */
export interface EdgeEntry {
  fetch(request: Request, env?: Bindings): Promise<Response>;
  /** Ends what the service started (its runners, the store). */
  close(): Promise<void>;
}

/** A new edge entry (the default export is one). */
export function createEdge(): EdgeEntry {
  let made: Promise<{ service: Service; fetch: (request: Request) => Response | Promise<Response> }> | undefined;
  const make = async (env: Bindings) => {
    if (!env.UPSTASH_REDIS_REST_URL || !env.UPSTASH_REDIS_REST_TOKEN) {
      throw new Error("Set the UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN bindings");
    }
    if (!env.SERVICE_TOKENS && env.ALLOW_ANONYMOUS !== "true") {
      throw new Error(
        "An edge deployment answers anyone: set the SERVICE_TOKENS binding (the tokens file's JSON), " +
          "or ALLOW_ANONYMOUS=true to run open on purpose",
      );
    }
    const config = loadServerConfig({ ...env, SERVICE_TOKENS_FILE: undefined }, "bindings");
    const tokens = env.SERVICE_TOKENS
      ? createTokenSet(parseTokens(env.SERVICE_TOKENS, { binding: "SERVICE_TOKENS" }))
      : undefined;
    const auth = { ...config.auth, allowedHosts: env.ALLOWED_HOSTS ? config.auth.allowedHosts : "any" as const };
    const service = createService({ ...config, auth }, {
      store: await openStore(config.store),
      tokens,
      deliversWebhooks: false,
    });
    return { service, fetch: createApp(service).fetch };
  };
  return {
    fetch(request, env = {}) {
      made ??= make(env);
      return made.then((app) => app.fetch(request), (error) => {
        made = undefined; // try again on the next request
        throw error;
      });
    },
    async close() {
      const app = await made?.catch(() => undefined);
      made = undefined;
      await app?.service.close();
    },
  };
}

export default createEdge();
