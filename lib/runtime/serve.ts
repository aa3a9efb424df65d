/** What a listener needs: a fetch handler and where to listen. */
export interface ServeOptions {
  readonly fetch: (request: Request) => Response | Promise<Response>;
  /** Defaults to 127.0.0.1: nothing here should listen beyond loopback unless asked. */
  readonly hostname?: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** PEM certificate and key: serve HTTPS instead of HTTP. */
  readonly tls?: { readonly cert: string; readonly key: string };
}

/** A running listener. */
export interface Listener {
  readonly port: number;
  readonly url: string;
  /** Stops accepting connections and waits for open requests to finish. */
  close(): Promise<void>;
}

/**
 * Serves `fetch` on Deno (`Deno.serve`) or Node (`@hono/node-server`), resolving once listening.
 *
 * @example
 * ```ts
 * const listener = await serve({ port: 0, fetch: app.fetch });
 * console.log(listener.url); // http://127.0.0.1:40123
 * await listener.close();
 * ```
 */
export function serve(options: ServeOptions): Promise<Listener> {
  return "Deno" in globalThis ? serveDeno(options) : serveNode(options);
}

function serveDeno(options: ServeOptions): Promise<Listener> {
  const hostname = options.hostname ?? "127.0.0.1";
  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname,
      port: options.port,
      ...options.tls,
      onListen: (addr) => {
        const port = (addr as Deno.NetAddr).port;
        resolve(listener(options, hostname, port, () => server.shutdown()));
      },
    }, options.fetch);
  });
}

async function serveNode(options: ServeOptions): Promise<Listener> {
  const hostname = options.hostname ?? "127.0.0.1";
  const { serve } = await import("@hono/node-server");
  const https = options.tls ? await import("node:https") : undefined;
  return new Promise((resolve) => {
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
      resolve(listener(options, hostname, info.port, close));
    });
  });
}

function listener(options: ServeOptions, hostname: string, port: number, close: () => Promise<void>): Listener {
  const scheme = options.tls ? "https" : "http";
  return { port, url: `${scheme}://${hostname}:${port}`, close };
}
