import type { Server } from "node:http";
import type { Listener, ServeOptions } from "../types.ts";
import { nodeLimits } from "./server_limits.ts";

/**
 * Serves `fetch` with `@hono/node-server` (HTTPS through `node:https`), with the connection
 * ceiling, timeouts and shutdown deadline of `options.limits`, resolving once listening.
 */
export async function nodeServe(options: ServeOptions): Promise<Listener> {
  const hostname = options.hostname ?? "127.0.0.1";
  const { serve } = await import("@hono/node-server");
  const https = options.tls ? await import("node:https") : undefined;
  const limits = nodeLimits(options);
  return new Promise((resolve, reject) => {
    const server = serve({
      fetch: limits.fetch,
      hostname,
      port: options.port,
      serverOptions: { ...limits.serverOptions, ...options.tls },
      ...(https ? { createServer: https.createServer } : {}),
    }, (info) => {
      const scheme = options.tls ? "https" : "http";
      resolve({
        port: info.port,
        url: `${scheme}://${hostname}:${info.port}`,
        maxConnections: limits.maxConnections,
        close: () => limits.close(server as Server),
      });
    });
    limits.apply(server as Server);
    server.once("error", reject);
  });
}
