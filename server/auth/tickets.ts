/**
 * Stream tickets: an `EventSource` cannot send `Authorization`, so a client with a token asks
 * `POST /stream-tickets` for a ticket and opens the stream with `?ticket=`. A ticket is random
 * (256 bits), lives 60 s, works once, only on the method, path and query it was issued for
 * (`ticket` aside, in any order), and carries the principal that asked for it.
 *
 * Tickets are kept in the store's idempotency port, so one process can issue and another redeem
 * (Redis). The key is the ticket's SHA-256 (the store never holds a usable ticket) after
 * `ticket ` — a space no `Idempotency-Key` can hold, so the two never meet; the value the port
 * calls a fingerprint carries the binding and the principal. Redeeming is the port's atomic
 * `complete` (it succeeds for one caller only): single use across processes.
 *
 * @example
 * ```ts
 * import { createMemoryIdempotencyStore } from "../../lib/store/mod.ts";
 * import { createTickets } from "./tickets.ts";
 * const tickets = createTickets(createMemoryIdempotencyStore());
 * const principal = { name: "ui", tenant: "acme", scopes: ["tasks:read" as const] };
 * const { ticket } = await tickets.issue(principal, "GET", "/tasks/t-1/stream", new URLSearchParams());
 * await tickets.redeem(ticket, "GET", "/tasks/t-1/stream", new URLSearchParams()); // { principal }
 * await tickets.redeem(ticket, "GET", "/tasks/t-1/stream", new URLSearchParams()); // { refused: "…used…" }
 * ```
 *
 * @module
 */
import type { IdempotencyStore } from "../../lib/store/mod.ts";
import type { Scope } from "./scopes.ts";
import { type Principal, sha256Hex } from "./tokens.ts";

/** How long a ticket lives unless told otherwise. */
export const DEFAULT_TICKET_TTL_MS = 60_000;

/** What redeeming a ticket gives: its principal, or why not (for the 401's detail). */
export type Redeemed = { principal: Principal } | { refused: string };

/** Issues and redeems tickets. */
export interface Tickets {
  readonly ttlMs: number;
  issue(
    principal: Principal,
    method: string,
    path: string,
    query: URLSearchParams,
  ): Promise<{ ticket: string; expiresAt: number }>;
  redeem(ticket: string, method: string, path: string, query: URLSearchParams): Promise<Redeemed>;
}

/** `GET /tasks/t-1/stream?events=a&replay=false`: what a ticket is bound to, the query sorted and without `ticket`. */
export function binding(method: string, path: string, query: URLSearchParams): string {
  const params = [...query].filter(([k]) => k !== "ticket").sort(([a, x], [b, y]) =>
    a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0
  );
  const search = new URLSearchParams(params).toString();
  return `${method.toUpperCase()} ${path}${search ? `?${search}` : ""}`;
}

interface Payload {
  readonly bound: string;
  readonly name: string;
  readonly tenant: string;
  readonly scopes: readonly Scope[];
  readonly expiresAt: number;
}

const USED = "used";
const ABSENT = "absent";
const key = (ticket: string) => `ticket ${sha256Hex(ticket)}`;

/** Tickets kept in `keys` (the store's idempotency port). */
export function createTickets(
  keys: IdempotencyStore,
  options: { ttlMs?: number; now?: () => number } = {},
): Tickets {
  const ttlMs = options.ttlMs ?? DEFAULT_TICKET_TTL_MS;
  const now = options.now ?? Date.now;
  return {
    ttlMs,
    async issue(principal, method, path, query) {
      const ticket = base64url(crypto.getRandomValues(new Uint8Array(32)));
      const expiresAt = now() + ttlMs;
      const payload: Payload = {
        bound: binding(method, path, query),
        name: principal.name,
        tenant: principal.tenant,
        scopes: principal.scopes,
        expiresAt,
      };
      const held = await keys.claim(key(ticket), encode(payload), ttlMs);
      if (held !== undefined) throw new Error("a fresh ticket collided with a live one"); // 2^-256: never
      return { ticket, expiresAt };
    },
    async redeem(ticket, method, path, query) {
      const id = key(ticket);
      const held = await keys.claim(id, ABSENT, 1);
      if (held === undefined) {
        await keys.release(id, ABSENT);
        return { refused: "The ticket is unknown or has expired; ask POST /stream-tickets for a new one" };
      }
      if (held.taskId !== undefined) {
        return { refused: "The ticket was used already; a ticket opens one stream once: ask for a new one" };
      }
      const payload = decode(held.fingerprint);
      if (!payload || payload.expiresAt <= now()) {
        return { refused: "The ticket is unknown or has expired; ask POST /stream-tickets for a new one" };
      }
      const asked = binding(method, path, query);
      if (payload.bound !== asked) {
        return {
          refused: `The ticket was issued for ${payload.bound}, not ${asked}; ask for a ticket for this stream`,
        };
      }
      // The atomic step: of concurrent redeemers, one completes the key; the others see it used.
      if (!await keys.complete(id, held.fingerprint, USED, Math.max(1, payload.expiresAt - now()))) {
        return { refused: "The ticket was used already; a ticket opens one stream once: ask for a new one" };
      }
      return { principal: { name: payload.name, tenant: payload.tenant, scopes: payload.scopes } };
    },
  };
}

function encode(payload: Payload): string {
  return base64url(new TextEncoder().encode(JSON.stringify(payload))); // no spaces, as the port requires
}

function decode(text: string): Payload | undefined {
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)))) as Payload;
  } catch {
    return undefined;
  }
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}
