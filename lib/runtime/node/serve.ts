import type { Listener, ServeOptions } from "../types.ts";

/** Serves `fetch` with `@hono/node-server` (HTTPS through `node:https`), resolving once listening. */
export async function nodeServe(options: ServeOptions): Promise<Listener> {
  const hostname = options.hostname ?? "127.0.0.1";
  const { serve } = await import("@hono/node-server");
  const https = options.tls ? await import("node:https") : undefined;
  return new Promise((resolve, reject) => {
    const server = serve({
      fetch: options.fetch,
      hostname,
      port: options.port,
      ...(https ? { createServer: https.createServer, serverOptions: options.tls } : {}),
    }, (info) => {
      const close = () =>
        new Promise<void>((done) => {
          server.close(() => done());
          (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        });
      const scheme = options.tls ? "https" : "http";
      resolve({ port: info.port, url: `${scheme}://${hostname}:${info.port}`, close });
    });
    server.once("error", reject);
  });
}
