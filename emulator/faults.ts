import { Hono, type MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { sleep } from "../lib/time/mod.ts";

/** A misbehaviour the emulator can be told to show. */
export type Fault =
  | { readonly kind: "status"; readonly status: number; readonly retryAfter?: number }
  | { readonly kind: "drop"; readonly afterBytes: number }
  | { readonly kind: "stall"; readonly ms: number };

interface FaultRule {
  readonly fault: Fault;
  /** Only requests whose path starts with this are affected. */
  readonly path: string;
  remaining: number;
}

/** Renders an error body in the format of the emulated API. */
export type ErrorBody = (status: number, message: string, path: string) => unknown;

const FAULT_HEADER = "x-emulator-fault";

/**
 * Reads a fault from JSON (`{"kind":"status","status":503}`) or from the header form
 * (`status=503`, `drop`, `drop=100`, `stall=2000`). Returns an error message when invalid.
 */
export function parseFault(input: Record<string, unknown>): Fault | string {
  switch (input.kind) {
    case "status": {
      const status = input.status ?? 503;
      if (!Number.isInteger(status) || (status as number) < 400 || (status as number) > 599) {
        return `status must be an integer from 400 to 599, got ${JSON.stringify(status)}`;
      }
      const retryAfter = input.retryAfter;
      if (retryAfter !== undefined && !(Number.isInteger(retryAfter) && (retryAfter as number) >= 0)) {
        return `retryAfter must be a whole number of seconds, got ${JSON.stringify(retryAfter)}`;
      }
      return {
        kind: "status",
        status: status as number,
        ...(retryAfter !== undefined && { retryAfter: retryAfter as number }),
      };
    }
    case "drop": {
      const afterBytes = input.afterBytes ?? 16;
      if (!Number.isInteger(afterBytes) || (afterBytes as number) < 0) {
        return `afterBytes must be a whole number, got ${JSON.stringify(afterBytes)}`;
      }
      return { kind: "drop", afterBytes: afterBytes as number };
    }
    case "stall": {
      const ms = input.ms ?? 30_000;
      if (!Number.isInteger(ms) || (ms as number) < 0) return `ms must be a whole number, got ${JSON.stringify(ms)}`;
      return { kind: "stall", ms: ms as number };
    }
    default:
      return `kind must be "status", "drop" or "stall", got ${JSON.stringify(input.kind)}`;
  }
}

function parseFaultHeader(value: string): Fault | string {
  const [kind, arg] = value.trim().split("=", 2);
  const number = arg === undefined ? undefined : Number(arg);
  const key = kind === "status" ? "status" : kind === "drop" ? "afterBytes" : "ms";
  return parseFault({ kind, ...(number !== undefined && { [key]: number }) });
}

/** Faults queued for the next requests of one listener. */
export class FaultPlan {
  #rules: FaultRule[] = [];

  add(fault: Fault, count: number, path = "/"): void {
    this.#rules.push({ fault, path, remaining: count });
  }

  clear(): void {
    this.#rules = [];
  }

  list(): { fault: Fault; path: string; remaining: number }[] {
    return this.#rules.map((r) => ({ ...r }));
  }

  /** The fault for a request to `path`, consuming one use of the first matching rule. */
  take(path: string): Fault | undefined {
    const rule = this.#rules.find((r) => path.startsWith(r.path));
    if (!rule) return undefined;
    if (--rule.remaining <= 0) this.#rules = this.#rules.filter((r) => r !== rule);
    return rule.fault;
  }
}

/**
 * Applies queued faults and the `x-emulator-fault` header (which affects only its own request).
 * Admin requests under `/__emulator/` are never faulted.
 */
export function faultMiddleware(plan: FaultPlan, errorBody: ErrorBody): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.path.startsWith("/__emulator/")) return next();
    const header = c.req.header(FAULT_HEADER);
    const fault = header !== undefined ? parseFaultHeader(header) : plan.take(c.req.path);
    if (typeof fault === "string") {
      return c.json(errorBody(400, `Invalid ${FAULT_HEADER} header: ${fault}`, c.req.path), 400);
    }
    if (!fault) return next();
    switch (fault.kind) {
      case "status": {
        const headers = fault.retryAfter !== undefined ? { "retry-after": String(fault.retryAfter) } : undefined;
        return c.json(
          errorBody(fault.status, `Injected fault: HTTP ${fault.status}`, c.req.path),
          fault.status as ContentfulStatusCode,
          headers,
        );
      }
      case "stall":
        await sleep(fault.ms, c.req.raw.signal).catch(() => {});
        return next();
      case "drop":
        await next();
        c.res = cutAfter(c.res, fault.afterBytes);
    }
  };
}

/**
 * `res` with its body cut after `limit` bytes: it declares more bytes than it sends and asks
 * for the connection to close, so the client sees the connection end mid-body. (Failing the
 * body stream cuts it too, but then the runtime logs a server error with its stack.) The rest
 * of the source is left unread rather than cancelled: Node's gzip stream throws when cancelled
 * while it compresses (see `lib/runtime/gzip.ts`), and an unread source costs nothing.
 */
function cutAfter(res: Response, limit: number): Response {
  if (!res.body) return res;
  const headers = new Headers(res.headers);
  headers.set("content-length", String(Math.max(Number(headers.get("content-length") ?? 0), limit + 1)));
  headers.set("connection", "close");
  const reader = res.body.getReader();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (!done && sent < limit) controller.enqueue(value.subarray(0, limit - sent));
      sent += value?.length ?? 0;
      if (done || sent >= limit) {
        controller.close();
        reader.releaseLock();
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers });
}

/**
 * Admin routes: `GET|POST|DELETE /__emulator/faults`. POST takes
 * `{kind, count?, path?, status?, retryAfter?, afterBytes?, ms?}`.
 */
export function faultRoutes(plan: FaultPlan): Hono {
  const app = new Hono();
  app.get("/faults", (c) => c.json({ faults: plan.list() }));
  app.delete("/faults", (c) => {
    plan.clear();
    return c.body(null, 204);
  });
  app.post("/faults", async (c) => {
    const input = await c.req.json().catch(() => null);
    if (input === null || typeof input !== "object") return c.json({ message: "Body must be a JSON object" }, 400);
    const fault = parseFault(input);
    if (typeof fault === "string") return c.json({ message: fault }, 400);
    const count = input.count ?? 1;
    if (!Number.isInteger(count) || count < 1) return c.json({ message: "count must be a positive integer" }, 400);
    const path = typeof input.path === "string" ? input.path : "/";
    plan.add(fault, count, path);
    return c.json({ fault, count, path }, 201);
  });
  return app;
}
