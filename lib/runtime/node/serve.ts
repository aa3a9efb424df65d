import type { Server } from "node:http";
import type { Http2Bindings, HttpBindings } from "@hono/node-server";
import type { Listener, ServeOptions } from "../types.ts";
import { nodeLimits } from "./server_limits.ts";
import { writeDirectBodies } from "./direct_write.ts";

/**
 * Serves `fetch` with `@hono/node-server` (HTTPS through `node:https`), with the connection
 * ceiling, timeouts and shutdown deadline of `options.limits`, resolving once listening.
 * Responses with a direct body (`withDirectBody`: event streams) are written straight to the connection.
 */
export async function nodeServe(options: ServeOptions): Promise<Listener> {
  const hostname = options.hostname ?? "127.0.0.1";
  const { serve } = await import("@hono/node-server");
  const { RESPONSE_ALREADY_SENT } = await import("@hono/node-server/utils/response");
  const https = options.tls ? await import("node:https") : undefined;
  const limits = nodeLimits(options);
  return new Promise((resolve, reject) => {
    const server = serve({
      // HTTP/1.1 (and over TLS): no HTTP/2 server is made here.
      fetch: (request: Request, env: HttpBindings | Http2Bindings) =>
        writeDirectBodies(limits.fetch(request), (env as HttpBindings).outgoing, RESPONSE_ALREADY_SENT),
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
