import { readFileSync } from "node:fs";
import type { Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { ServeOptions } from "../types.ts";
import {
  bodyTimeoutAnswer,
  closingConnection,
  connectionCeiling,
  DEFAULT_SERVE_LIMITS,
  guardRequestBody,
  type ServeLimits,
  type ServeLog,
  softDescriptorLimit,
} from "../serve_limits.ts";

/** The limits of one Node listener, resolved, and what applies them. */
export interface NodeLimits {
  readonly limits: ServeLimits;
  readonly maxConnections: number;
  /** `http.createServer` options: Node's own header and request timeouts. */
  readonly serverOptions: {
    readonly headersTimeout: number;
    readonly requestTimeout: number;
    readonly connectionsCheckingInterval: number;
    readonly keepAliveTimeout: number;
  };
  /** `options.fetch` with the request-body deadline, saying `connection: close` while closing. */
  readonly fetch: (request: Request) => Response | Promise<Response>;
  /** Sets the ceiling and the idle timeout on the server, and logs dropped connections. */
  apply(server: Server): void;
  /** Stops accepting, lets requests finish until the shutdown deadline, then closes every connection. */
  close(server: Server): Promise<void>;
}

function descriptorLimit(): number | undefined {
  try {
    return softDescriptorLimit(readFileSync("/proc/self/limits", "utf8"));
  } catch {
    return undefined; // not Linux: no ceiling from the descriptor limit
  }
}

/**
 * Resolves `options.limits` for Node's HTTP server. Node raises its soft open-file limit to the
 * hard limit at start and survives EMFILE by itself (libuv accepts and closes); it checks
 * header and request deadlines every `connectionsCheckingInterval`, answering 408 itself.
 * Its `requestTimeout` (head and body together) is only a backstop here: the body deadline is
 * the guard's, as on Deno.
 */
export function nodeLimits(options: ServeOptions): NodeLimits {
  const log: ServeLog = options.log ?? (() => {});
  const limits: ServeLimits = { ...DEFAULT_SERVE_LIMITS, ...options.limits };
  const ceiling = connectionCeiling(limits.maxConnections, descriptorLimit());
  if (ceiling.warning) log("warn", ceiling.warning);
  let closing = false;
  const sockets = new Set<Socket>();
  /**
   * Ends every connection once it serves no request — one that never sent any included — after
   * what it has written. The response a socket is serving is Node's `_httpMessage` (what its own
   * `closeIdleConnections()` reads): looking there at shutdown spares a listener per request.
   */
  const closeUnused = () => {
    for (const socket of sockets) {
      const response = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
      const end = () => socket.end(() => socket.destroy());
      if (response && !response.writableEnded) response.once("close", end);
      else end();
    }
  };
  // Not async for GET and HEAD: the handler's promise goes to the adapter as it is.
  const fetch = (request: Request): Response | Promise<Response> => {
    if (request.method === "GET" || request.method === "HEAD") {
      return closing ? Promise.resolve(options.fetch(request)).then(closingConnection) : options.fetch(request);
    }
    return withBodyDeadline(request);
  };
  const withBodyDeadline = async (request: Request) => {
    const guarded = guardRequestBody(request, limits.bodyTimeoutMs);
    const response = await options.fetch(guarded.request);
    if (guarded.timedOut()) return bodyTimeoutAnswer(response, limits.bodyTimeoutMs, log);
    return closing ? closingConnection(response) : response;
  };
  return {
    limits,
    maxConnections: ceiling.max,
    serverOptions: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.headersTimeoutMs + limits.bodyTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.max(25, limits.headersTimeoutMs / 4)),
      keepAliveTimeout: limits.keepAliveTimeoutMs,
    },
    fetch,
    apply(server) {
      server.maxConnections = ceiling.max;
      server.keepAliveTimeout = limits.keepAliveTimeoutMs;
      server.on("connection", (socket: Socket) => {
        sockets.add(socket);
        socket.once("close", () => sockets.delete(socket));
      });
      let dropped = 0;
      let quiet: ReturnType<typeof setTimeout> | undefined;
      server.on("drop", () => {
        if (dropped++ === 0) {
          log("warn", `${ceiling.max} connections open, the ceiling (MAX_CONNECTIONS): closing new ones`);
        }
        clearTimeout(quiet);
        quiet = setTimeout(() => {
          log("info", `no connection refused for a second; ${dropped} were closed at the ceiling`);
          dropped = 0;
        }, 1000);
        quiet.unref?.();
      });
    },
    close(server) {
      closing = true;
      return new Promise<void>((resolve) => {
        const deadline = setTimeout(() => {
          log("info", `shutdown deadline of ${limits.shutdownTimeoutMs} ms passed: closing the remaining connections`);
          server.closeAllConnections();
        }, limits.shutdownTimeoutMs);
        // Stops accepting and ends the connections that serve no request — Node's
        // closeIdleConnections() leaves one that has not sent a request yet open until its header
        // timeout; busy ones end after their response.
        server.close(() => {
          clearTimeout(deadline);
          resolve();
        });
        closeUnused();
      });
    },
  };
}
