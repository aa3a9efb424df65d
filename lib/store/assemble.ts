/**
 * A `Store` from an adapter's parts: how it pings, limits and closes, and the ports it opens at a
 * key prefix (the base's, then each tenant's). Every adapter is built by it, so a store and its
 * tenant views are put together in one way.
 *
 * @module
 */
import type { Store } from "./store.ts";
import type { ScriptHost } from "./script_host.ts";
import { createScriptedTaskPorts, type FollowMode } from "./tasks/scripted.ts";
import { createScriptedDocumentStore } from "./documents/scripted.ts";
import { createScriptedIdempotencyStore } from "./idempotency/scripted.ts";
import { createScriptedWebhookStore } from "./webhooks/scripted.ts";
import { type TenantPorts, tenantPrefix, withTenants } from "./tenant.ts";

/** What is a store's own, besides its ports: the connection's. */
export type StoreBase = Pick<Store, "kind" | "ping" | "hitSlidingWindow" | "close">;

/**
 * The store of `base` with the ports `portsAt(prefix)` opens, and a tenant's at the tenant's
 * prefix; `close()` ends the ports, then the connection.
 */
export function assembleStore(base: StoreBase, prefix: string, portsAt: (prefix: string) => TenantPorts): Store {
  const ports = portsAt(prefix);
  return withTenants({
    kind: base.kind,
    ping: base.ping,
    hitSlidingWindow: base.hitSlidingWindow,
    tasks: ports.tasks,
    events: ports.events,
    queue: ports.queue,
    documents: ports.documents,
    idempotency: ports.idempotency,
    webhooks: ports.webhooks,
    async close() {
      await ports.close();
      await base.close();
    },
  }, (tenant) => portsAt(tenantPrefix(prefix, tenant)));
}

/** Every port over a Redis-speaking `host` (ioredis, a cluster, Upstash REST) at `prefix`. */
export function scriptedPorts(
  host: ScriptHost,
  prefix: string,
  options: { follow: FollowMode; cluster?: boolean; partitions?: number },
): TenantPorts {
  return {
    ...createScriptedTaskPorts(host, { prefix, ...options }),
    documents: createScriptedDocumentStore(host, { prefix, cluster: options.cluster }),
    idempotency: createScriptedIdempotencyStore(host, { prefix }),
    webhooks: createScriptedWebhookStore(host, { prefix }),
  };
}
