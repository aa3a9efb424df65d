import type { Store } from "./store.ts";
import type { EventLog, SharedChannels, TaskStore, WorkQueue } from "../task_model/ports.ts";
import type { DocumentStore } from "./documents/port.ts";
import type { IdempotencyStore } from "./idempotency/port.ts";
import type { WebhookStore } from "./webhooks/port.ts";

/** A tenant's name: 1-64 characters of `A-Z a-z 0-9 . _ -` (no `{`, `}` or `:`: they would break hash tags and prefixes). */
export const TENANT_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Throws when `tenant` is not a valid tenant name ({@link TENANT_NAME}), naming the value and the rule.
 *
 * @example
 * ```ts
 * checkTenant("acme-eu"); // fine
 * ```
 */
export function checkTenant(tenant: string): void {
  if (typeof tenant === "string" && TENANT_NAME.test(tenant)) return;
  throw new TypeError(
    `tenant '${tenant}' is not a valid tenant name: use 1-64 characters of A-Z, a-z, 0-9, '.', '_' and '-' ` +
      "(no '{', '}', ':' or spaces)",
  );
}

/** The ports a store keeps per tenant, and what closing them releases. */
export interface TenantPorts {
  readonly tasks: TaskStore;
  readonly events: EventLog;
  readonly queue: WorkQueue;
  readonly documents: DocumentStore;
  readonly idempotency: IdempotencyStore;
  readonly webhooks: WebhookStore;
  /** Ends the ports' followers (their connections are the base's). */
  close(): Promise<void>;
}

/** The key prefix of a tenant's data on a Redis-speaking store: before the hash tag, so it spreads as the base's. */
export function tenantPrefix(prefix: string, tenant: string): string {
  return `${prefix}tenant:${tenant}:`;
}

/**
 * Gives a store its tenant views: `base` is the store without `forTenant`; `open(tenant)` makes
 * a tenant's own ports (on the base's connections). Views are cached (one per tenant and store),
 * answer `ping` and `hitSlidingWindow` with the base's, and their `close()` does nothing; the
 * returned store's `close()` closes every view's ports, then the base. The base's
 * `tasks.retain()` and `tasks.shareEvents()` apply to every view (made before or after); a
 * view's own call changes only that view.
 *
 * @example
 * ```ts ignore
 * const store = withTenants(base, (tenant) => ports(tenantPrefix(prefix, tenant)));
 * store.forTenant("acme").tasks.get("t1");
 * ```
 */
export function withTenants(base: Omit<Store, "forTenant">, open: (tenant: string) => TenantPorts): Store {
  const views = new Map<string, { view: Store; ports: TenantPorts }>();
  let retention: number | undefined;
  let shared: SharedChannels | undefined;
  const tasks: TaskStore = {
    ...base.tasks,
    retain(ms) {
      base.tasks.retain(ms);
      retention = ms;
      for (const { ports } of views.values()) ports.tasks.retain(ms);
    },
    shareEvents(channels) {
      base.tasks.shareEvents(channels);
      shared = channels;
      for (const { ports } of views.values()) ports.tasks.shareEvents(channels);
    },
  };
  const store: Store = {
    ...base,
    tasks,
    forTenant(tenant) {
      const known = views.get(tenant);
      if (known) return known.view;
      checkTenant(tenant);
      const ports = open(tenant);
      if (retention !== undefined) ports.tasks.retain(retention);
      if (shared !== undefined) ports.tasks.shareEvents(shared);
      const view: Store = {
        kind: base.kind,
        ping: () => base.ping(),
        hitSlidingWindow: (key, limit, windowMs) => base.hitSlidingWindow(key, limit, windowMs),
        tasks: ports.tasks,
        events: ports.events,
        queue: ports.queue,
        documents: ports.documents,
        idempotency: ports.idempotency,
        webhooks: ports.webhooks,
        forTenant: (other) => store.forTenant(other), // tenants do not nest
        close: () => Promise.resolve(), // the base's close() closes it
      };
      views.set(tenant, { view, ports });
      return view;
    },
    async close() {
      const all = [...views.values()];
      views.clear();
      await Promise.all(all.map(({ ports }) => ports.close()));
      await base.close();
    },
  };
  return store;
}
