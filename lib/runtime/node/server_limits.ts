import { readFileSync } from "node:fs";
import type { Server } from "node:http";
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
  readonly fetch: (request: Request) => Promise<Response>;
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
  /** Open connections and how many requests each is serving. */
  const sockets = new Map<Socket, number>();
  /** Ends every connection that serves no request, including one that never sent any (after what it has written). */
  const closeUnused = () => {
    for (const [socket, requests] of sockets) if (requests === 0) socket.end(() => socket.destroy());
  };
  const fetch = async (request: Request) => {
    if (request.method === "GET" || request.method === "HEAD") {
      const response = await options.fetch(request);
      return closing ? closingConnection(response) : response;
    }
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
        sockets.set(socket, 0);
        socket.once("close", () => sockets.delete(socket));
      });
      server.on("request", (request, response) => {
        const socket = request.socket as Socket;
        sockets.set(socket, (sockets.get(socket) ?? 0) + 1);
        response.once("close", () => {
          if (sockets.has(socket)) sockets.set(socket, sockets.get(socket)! - 1);
          if (closing) closeUnused();
        });
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
