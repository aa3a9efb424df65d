import type { Store } from "./store.ts";

/**
 * Told of each asynchronous store call as it starts: its family (`tasks.get`, `events.append`,
 * `hitSlidingWindow`…), when it began (`performance.now()`) and the promise of its answer.
 */
export type StoreCallObserver = (family: string, startedAt: number, answer: Promise<unknown>) => void;

const PORTS = ["tasks", "events", "queue", "documents", "idempotency", "webhooks"] as const;

/**
 * `store` with each call that answers with a promise told to `observe` (metrics of store latency,
 * spans); calls that answer at once (`newRootId`, `follow`…) pass unobserved. Tenant views are
 * observed too.
 *
 * @example
 * ```ts
 * import { createMemoryStore, observeStore } from "./mod.ts";
 * const families: string[] = [];
 * const store = observeStore(createMemoryStore(), (family) => families.push(family));
 * await store.tasks.get("t1");
 * families; // ["tasks.get"]
 * ```
 */
export function observeStore(store: Store, observe: StoreCallObserver): Store {
  const views = new WeakMap<Store, Store>();
  const wrap = (base: Store): Store => {
    const known = views.get(base);
    if (known) return known;
    const ports = Object.fromEntries(PORTS.map((port) => [port, observed(base[port], `${port}.`, observe)]));
    const top = observed(base, "", observe);
    const view: Store = Object.assign(Object.create(top), ports, {
      forTenant: (tenant: string) => wrap(base.forTenant(tenant)),
    });
    views.set(base, view);
    return view;
  };
  return wrap(store);
}

/**
 * `target`'s methods (its own and its prototypes'), each wrapped to tell `observe` of its promised
 * answers under `prefix` + its name, in a plain object made once (a Proxy would cost every call).
 */
function observed<T extends object>(target: T, prefix: string, observe: StoreCallObserver): T {
  // What is not a method (`kind`) is read from the target, the prototype.
  const wrapped: Record<string, unknown> = Object.create(target);
  for (let o: object | null = target; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const name of Object.getOwnPropertyNames(o)) {
      const value = (target as Record<string, unknown>)[name];
      if (name === "constructor" || Object.hasOwn(wrapped, name) || typeof value !== "function") continue;
      const family = prefix + name;
      wrapped[name] = function () {
        const startedAt = performance.now();
        // `arguments` passed through as they came: no array made per call.
        const answer = value.apply(target, arguments);
        if (answer instanceof Promise) observe(family, startedAt, answer);
        return answer;
      };
    }
  }
  return wrapped as T;
}
