import { SlidingWindowLog } from "../ratelimit/mod.ts";
import type { Store } from "./store.ts";
import { createMemoryTaskPorts } from "./tasks/memory.ts";
import { createMemoryDocumentStore } from "./documents/memory.ts";
import { createMemoryIdempotencyStore } from "./idempotency/memory.ts";
import { createMemoryWebhookStore } from "./webhooks/memory.ts";
import type { TenantPorts } from "./tenant.ts";
import { assembleStore } from "./assemble.ts";

/**
 * The embedded in-process store, the default: nothing to install or run, and exact.
 *
 * @example
 * ```ts
 * const store = createMemoryStore();
 * await store.hitSlidingWindow("k", 10, 30_000); // { allowed: true, count: 1, resetMs: 30000 }
 * ```
 */
export function createMemoryStore(options: { now?: () => number; prefix?: string } = {}): Store {
  const log = new SlidingWindowLog(options.now ?? Date.now);
  const prefix = options.prefix ?? "";
  // The base's ports, and a separate set per tenant on the same clock.
  const open = (): TenantPorts => ({
    ...createMemoryTaskPorts({ now: options.now }),
    documents: createMemoryDocumentStore({ now: options.now }),
    idempotency: createMemoryIdempotencyStore({ now: options.now }),
    webhooks: createMemoryWebhookStore(),
  });
  return assembleStore(
    {
      kind: "memory",
      ping: () => Promise.resolve(),
      hitSlidingWindow: (key, limit, windowMs) => Promise.resolve(log.hit(prefix + key, limit, windowMs)),
      close: () => Promise.resolve(),
    },
    prefix,
    open,
  );
}
