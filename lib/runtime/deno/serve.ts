import type { Listener, ServeOptions } from "../types.ts";

/** Serves `fetch` with `Deno.serve`, resolving once listening. */
export function denoServe(options: ServeOptions): Promise<Listener> {
  const hostname = options.hostname ?? "127.0.0.1";
  return new Promise((resolve, reject) => {
    try {
      const server = Deno.serve({
        hostname,
        port: options.port,
        ...options.tls,
        onListen: ({ port }) => {
          const scheme = options.tls ? "https" : "http";
          resolve({ port, url: `${scheme}://${hostname}:${port}`, close: () => server.shutdown() });
        },
      }, options.fetch);
    } catch (error) {
      reject(error);
    }
  });
}
