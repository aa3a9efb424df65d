import type { Listener, ServeOptions } from "../types.ts";
import {
  bodyTimeoutAnswer,
  closingConnection,
  connectionCeiling,
  DEFAULT_SERVE_LIMITS,
  guardRequestBody,
  readSmallBody,
  type ServeLimits,
  type ServeLog,
  softDescriptorLimit,
} from "../serve_limits.ts";

/** What Deno's HTTP server gives back for one connection it serves. */
interface HttpConnection {
  readonly finished: Promise<void>;
}

type ServeHandler = (request: Request, info: { readonly completed: Promise<void> }) => Response | Promise<Response>;

/**
 * Deno's own `serveHttpOnConnection` (what `Deno.serve` runs on, per connection). `Deno.serve`
 * accepts in Rust and ends, with every connection, on the first failed `accept()` (EMFILE);
 * it has no connection ceiling and no client timeouts. Accepting here and handing each
 * connection over keeps the same native HTTP path while this code decides which connections
 * live and for how long.
 */
type ServeOnConnection = (
  conn: Deno.Conn,
  signal: CancelHook,
  handler: ServeHandler,
  onError: (error: unknown) => Response,
  onListen: () => void,
) => HttpConnection;

/**
 * Stands in for the abort signal, whose "abort" listener Deno registers to cancel the
 * connection: called here directly, a connection that has just ended throws `BadResource`
 * where it can be caught (from a real signal's listener it would end the process).
 */
interface CancelHook {
  addEventListener(type: "abort", listener: () => void): void;
}

function serveOnConnection(): ServeOnConnection | undefined {
  const deno = Deno as unknown as { internal?: symbol } & Record<symbol, { serveHttpOnConnection?: unknown }>;
  const serve = deno.internal && deno[deno.internal]?.serveHttpOnConnection;
  return typeof serve === "function" ? serve as ServeOnConnection : undefined;
}

/** One open connection: requests in flight, and when it is closed if it stays idle. */
interface Connection {
  /** Closes the connection at once, requests in flight included. */
  readonly cancel: () => void;
  /** Resolves when the connection has ended, however it ended. */
  readonly ended: Promise<void>;
  active: number;
  /** `performance.now()` past which an idle connection is closed; Infinity while requests run. */
  deadline: number;
  /** The sweep during which its last response was handed over (-1 before any). */
  answeredInSweep: number;
}

const noLog: ServeLog = () => {};

function descriptorLimit(): number | undefined {
  try {
    return softDescriptorLimit(Deno.readTextFileSync("/proc/self/limits"));
  } catch {
    return undefined; // not Linux: no ceiling from the descriptor limit
  }
}

/**
 * Serves `fetch` on Deno's native HTTP server with a connection ceiling, header, idle and body
 * timeouts and a shutdown deadline (`ServeOptions.limits`), resolving once listening. Deno
 * raises its soft open-file limit to the hard limit itself at start.
 */
export function denoServe(options: ServeOptions): Promise<Listener> {
  const native = serveOnConnection();
  const log = options.log ?? noLog;
  if (!native) {
    log(
      "warn",
      `Deno ${Deno.version.deno} has no serveHttpOnConnection: serving without connection ceiling or timeouts`,
    );
    return plainServe(options);
  }
  const serve: ServeOnConnection = native;
  const limits: ServeLimits = { ...DEFAULT_SERVE_LIMITS, ...options.limits };
  const ceiling = connectionCeiling(limits.maxConnections, descriptorLimit());
  if (ceiling.warning) log("warn", ceiling.warning);
  const hostname = options.hostname ?? "127.0.0.1";
  let listener: Deno.Listener;
  try {
    listener = options.tls
      ? Deno.listenTls({ hostname, port: options.port, ...options.tls, alpnProtocols: ["h2", "http/1.1"] })
      : Deno.listen({ hostname, port: options.port });
  } catch (error) {
    return Promise.reject(error);
  }
  const port = (listener.addr as Deno.NetAddr).port;
  const connections = new Set<Connection>();
  const onError = (error: unknown) => {
    log("warn", `request failed before the handler answered: ${(error as Error)?.message ?? error}`);
    return new Response(null, { status: 500 });
  };

  function open(conn: Deno.Conn) {
    let cancelListener = () => {};
    const hook: CancelHook = { addEventListener: (_type, listener) => cancelListener = listener };
    const cancel = () => {
      try {
        cancelListener();
      } catch { /* it has just ended */ }
    };
    const record = {
      active: 0,
      deadline: performance.now() + limits.headersTimeoutMs,
      answeredInSweep: -1,
    } as Connection;
    const done = () => {
      record.answeredInSweep = sweeps;
      if (--record.active === 0) record.deadline = performance.now() + (closing ? 0 : limits.keepAliveTimeoutMs);
    };
    const handler: ServeHandler = async (request, info) => {
      if (record.active++ === 0) record.deadline = Infinity;
      info.completed.then(done, done);
      if (request.method === "GET" || request.method === "HEAD") {
        const response = await options.fetch(request);
        return closing ? closingConnection(response) : response;
      }
      const small = options.prereadSmallBodies ? await readSmallBody(request, limits.bodyTimeoutMs) : "other";
      if (small === "read") {
        const response = await options.fetch(request);
        return closing ? closingConnection(response) : response;
      }
      if (small === "gone") return new Response(null, { status: 400 }); // nobody is there to read it
      if (small === "timeout") {
        info.completed.finally(() => record.deadline = 0).catch(() => {});
        return bodyTimeoutAnswer(new Response(null, { status: 500 }), limits.bodyTimeoutMs, log);
      }
      const guarded = guardRequestBody(request, limits.bodyTimeoutMs);
      const response = await options.fetch(guarded.request);
      if (!guarded.timedOut()) return closing ? closingConnection(response) : response;
      // Deno says `connection: close` but keeps reading the unfinished body: the sweeper closes it.
      info.completed.finally(() => record.deadline = 0).catch(() => {});
      return bodyTimeoutAnswer(response, limits.bodyTimeoutMs, log);
    };
    const http = serve(conn, hook, handler, onError, () => {});
    const ended = http.finished.catch((error) => log("debug", `connection ended: ${error?.message ?? error}`))
      .finally(() => connections.delete(record));
    Object.assign(record, { cancel, ended });
    connections.add(record);
  }

  /**
   * Whether a connection's last response has surely been written. `completed` settles as a
   * response is handed over, before Deno writes it; cancelled in the same turn of the event
   * loop, the connection loses the response and may never close. A whole sweep interval later,
   * it has been written.
   */
  const written = (connection: Connection) => sweeps >= connection.answeredInSweep + 2;

  // Closes connections past their deadline: no request head in time, or idle too long.
  let sweeps = 0;
  const tick = Math.min(1000, Math.max(25, Math.min(limits.headersTimeoutMs, limits.keepAliveTimeoutMs) / 4));
  const sweep = () => {
    sweeps++;
    const now = performance.now();
    for (const connection of connections) {
      if (connection.deadline < now && written(connection)) {
        connection.deadline = Infinity;
        connection.cancel();
      }
    }
  };
  let sweeper = setInterval(sweep, tick);

  let refused = 0;
  let failures = 0;
  let lastFailure = 0;
  let lastRefusal = 0;
  const acceptLoop = (async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch (error) {
        if (error instanceof Deno.errors.BadResource || error instanceof Deno.errors.Interrupted) return;
        // EMFILE and the like: the connection waits in the backlog; try again, backing off up to 1 s.
        if (failures++ === 0) {
          log("warn", `cannot accept connections (${connections.size} open): ${(error as Error).message}; retrying`);
        }
        lastFailure = performance.now();
        await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 5 * 2 ** Math.min(failures, 8))));
        continue;
      }
      // One line when failures start and one when a second has passed without any: no flood.
      if (failures > 0 && performance.now() - lastFailure > 1000) {
        log("info", `accepting connections again; ${failures} attempts had failed`);
        failures = 0;
      }
      if (connections.size >= ceiling.max) {
        if (refused++ === 0) {
          log("warn", `${connections.size} connections open, the ceiling (MAX_CONNECTIONS): closing new ones`);
        }
        lastRefusal = performance.now();
        conn.close();
        continue;
      }
      if (refused > 0 && performance.now() - lastRefusal > 1000) {
        log("info", `no connection refused for a second; ${refused} were closed at the ceiling`);
        refused = 0;
      }
      try {
        open(conn);
      } catch (error) {
        log("warn", `cannot serve a connection: ${(error as Error).message}`);
        try {
          conn.close();
        } catch { /* already closed */ }
      }
    }
  })();

  let closing: Promise<void> | undefined;
  const close = () =>
    closing ??= (async () => {
      listener.close();
      await acceptLoop;
      const all = () => Promise.all([...connections].map((c) => c.ended));
      // Idle connections close at the next sweep, busy ones at the sweep after their last answer.
      for (const connection of connections) if (connection.active === 0) connection.deadline = 0;
      clearInterval(sweeper);
      sweeper = setInterval(sweep, 25);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const expired = new Promise<boolean>((resolve) =>
        timer = setTimeout(() => resolve(true), limits.shutdownTimeoutMs)
      );
      if (await Promise.race([all().then(() => false), expired])) {
        log(
          "info",
          `shutdown deadline of ${limits.shutdownTimeoutMs} ms passed: closing ${connections.size} connections`,
        );
        for (const connection of connections) connection.cancel();
        await all();
      }
      clearTimeout(timer);
      clearInterval(sweeper);
    })();

  const scheme = options.tls ? "https" : "http";
  return Promise.resolve({ port, url: `${scheme}://${hostname}:${port}`, maxConnections: ceiling.max, close });
}

/** `Deno.serve` as it is: no ceiling, no timeouts (for a Deno without `serveHttpOnConnection`). */
function plainServe(options: ServeOptions): Promise<Listener> {
  const hostname = options.hostname ?? "127.0.0.1";
  return new Promise((resolve, reject) => {
    try {
      const server = Deno.serve({
        hostname,
        port: options.port,
        ...options.tls,
        onListen: ({ port }) => {
          const scheme = options.tls ? "https" : "http";
          resolve({
            port,
            url: `${scheme}://${hostname}:${port}`,
            maxConnections: Infinity,
            close: () => server.shutdown(),
          });
        },
      }, options.fetch);
    } catch (error) {
      reject(error);
    }
  });
}
