/**
 * The service and its app for a test, built as the entries build them: the one configuration
 * (from `env`, as the variables would give it) and the parts a test chooses; `await using`
 * closes the service (its runners, indexes and store).
 *
 * @example
 * ```ts ignore
 * await using t = testApp({ env: { CASCADE_CANCEL: "false" }, kinds: [myKind] });
 * const res = await t.app.request("/tasks");
 * ```
 *
 * @module
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { createMemoryStore } from "../lib/store/mod.ts";
import {
  createApp,
  createService,
  loadServerConfig,
  type ServerConfig,
  type Service,
  type ServiceParts,
} from "../server/mod.ts";

/**
 * A test's service: the parts it chooses (a memory store and a quiet log unless given), its
 * settings by name (`env`), and `configure` for what no variable says (the edge's `"any"` host).
 */
export type TestServiceOptions = Partial<ServiceParts> & {
  readonly env?: Record<string, string>;
  readonly configure?: (config: ServerConfig) => ServerConfig;
};

/** A service as `main.ts` makes one, from `env` and `options`. */
export function testService(options: TestServiceOptions = {}): Service & AsyncDisposable {
  const { env = {}, configure = (config) => config, ...parts } = options;
  const config = configure(loadServerConfig(env));
  const service = createService(config, { log: () => {}, ...parts, store: parts.store ?? createMemoryStore() });
  return Object.assign(service, { [Symbol.asyncDispose]: () => service.close() });
}

/** The app over a {@link testService}. */
export function testApp(options: TestServiceOptions = {}): { app: OpenAPIHono; service: Service } & AsyncDisposable {
  const service = testService(options);
  return { app: createApp(service), service, [Symbol.asyncDispose]: () => service.close() };
}
