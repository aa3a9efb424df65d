import { assert, assertEquals, assertThrows } from "../testing/assert.ts";
import { testTokens } from "../testing/auth_tokens.ts";
import { until } from "../testing/until.ts";
import { createMemoryStore, type Store } from "../lib/store/mod.ts";
import { TaskQuotaError } from "../lib/tasks/mod.ts";
import { createTokenSet, parseTokens } from "./auth/tokens.ts";
import { loadServerConfig } from "./config.ts";
import { createService } from "./service.ts";

/** `store` with its close() counted. */
function counted(store: Store) {
  const closes = { count: 0 };
  return { closes, store: { ...store, close: () => (closes.count++, store.close()) } };
}

Deno.test("createService() gives every scope the settings: a tenant's runner has the quotas, its view the retention", async () => {
  const { store } = counted(createMemoryStore());
  const config = loadServerConfig({ TENANT_MAX_LIVE_TASKS: "1", TASK_RETENTION_SECONDS: "1" });
  const service = createService(config, { store, log: () => {} });
  try {
    const acme = service.scope("acme");
    await acme.runner.submit({ kind: "demo", input: { steps: 0, ask: "?" } });
    const refused = await acme.runner.submit({ kind: "demo", input: { steps: 0, ask: "?" } }).catch((e) => e);
    assert(refused instanceof TaskQuotaError, String(refused));
    const done = await service.scope("globex").runner.submit({ kind: "demo", input: { steps: 0 } });
    const view = service.scope("globex").store;
    await until("the finished task retired", async () => (await view.tasks.usage()).stored === 0, 10_000);
    assertEquals(await view.tasks.get(done.task_id), undefined);
    assertEquals(service.scope("acme"), acme, "one scope per tenant, kept");
  } finally {
    await service.close();
  }
});

Deno.test("start() makes the tokens' tenants' scopes (running open, the store's own); close() ends every scope it made, then the store", async () => {
  const { store, closes } = counted(createMemoryStore());
  const tokens = createTokenSet(parseTokens(testTokens().file, "test"));
  const service = createService(loadServerConfig({}), { store, tokens, log: () => {} });
  service.start();
  // A task running in a scope made by a request's tenant: close() hands it back for another process.
  const running = await service.scope("acme").runner.submit({ kind: "demo", input: { steps: 100, delay_ms: 50 } });
  const view = service.scope("acme").store;
  await until("the task runs", async () => ((await view.tasks.get(running.task_id))?.updates.length ?? 0) > 0);
  await service.close();
  assertEquals(closes.count, 1);
  const [job] = await view.queue.take("another-process", 30_000);
  assertEquals([job?.taskId, job?.reclaimed], [running.task_id, true], "handed back at once, not after its lease");
  assertThrows(() => service.scope("acme"), /closed/);
});
