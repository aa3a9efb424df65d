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

/** `target` with each method's promised answers told to `observe` under `prefix` + its name. */
function observed<T extends object>(target: T, prefix: string, observe: StoreCallObserver): T {
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(object, name, receiver) {
      const value = Reflect.get(object, name, receiver);
      if (typeof value !== "function" || typeof name !== "string") return value;
      let method = methods.get(name);
      if (!method) {
        const family = prefix + name;
        method = (...args: unknown[]) => {
          const startedAt = performance.now();
          const answer = value.apply(object, args);
          if (answer instanceof Promise) observe(family, startedAt, answer);
          return answer;
        };
        methods.set(name, method);
      }
      return method;
    },
  });
}
