/**
 * The API clients of `lib/cloud` and `lib/enterprise` against the emulator's fetch handlers.
 *
 * @module
 */
import { assertEquals, assertRejects } from "../testing/assert.ts";
import { createEmulator, DEFAULT_OPTIONS } from "../emulator/mod.ts";
import type { StoreCtlError } from "../lib/errors/mod.ts";
import { fetchTransport } from "../lib/http/mod.ts";
import {
  createCloudClient,
  createDatabase,
  deleteDatabase,
  getDatabase,
  listDatabases,
  updateDatabase,
  waitForTask,
} from "../lib/cloud/mod.ts";
import { createBdb, createEnterpriseClient, deleteBdb, getBdb, listBdbs, updateBdb } from "../lib/enterprise/mod.ts";

function emulatedClient() {
  const emulator = createEmulator({ ...DEFAULT_OPTIONS, taskDelayMs: 0 });
  return createCloudClient(
    { apiKey: "demo-key", apiSecret: "demo-secret", apiUrl: "http://cloud.test/v1" },
    {
      transport: fetchTransport((input, init) => Promise.resolve(emulator.cloud.fetch(new Request(input, init)))),
      timeoutMs: 5000,
    },
  );
}

Deno.test("cloud databases: list, create, update and delete, each change through its task", async () => {
  const client = emulatedClient();
  const { subscriptions } = await client.get<{ subscriptions: { id: number }[] }>("/subscriptions");
  const sub = subscriptions[0].id;
  const before = await listDatabases(client, sub);
  const created = await waitForTask(
    client,
    (await createDatabase(client, sub, { name: "cache", memoryLimitInGb: 1 })).taskId,
  );
  const id = Number(created.response!.resourceId);
  assertEquals((await getDatabase(client, sub, id)).name, "cache");
  assertEquals((await listDatabases(client, sub)).length, before.length + 1);
  await waitForTask(client, (await updateDatabase(client, sub, id, { memoryLimitInGb: 2 })).taskId);
  assertEquals((await getDatabase(client, sub, id)).memoryLimitInGb, 2);
  await waitForTask(client, (await deleteDatabase(client, sub, id)).taskId);
  const gone = await assertRejects(() => getDatabase(client, sub, id)) as StoreCtlError;
  assertEquals(gone.code, "not_found");
});

Deno.test("enterprise bdbs: list, create, update and delete", async () => {
  const emulator = createEmulator({ ...DEFAULT_OPTIONS, taskDelayMs: 0 });
  const client = createEnterpriseClient(
    { url: "https://cluster.test:9443", username: "admin@example.com", password: "demo-password" },
    {
      transport: fetchTransport((input, init) => Promise.resolve(emulator.enterprise.fetch(new Request(input, init)))),
      timeoutMs: 5000,
    },
  );
  const before = await listBdbs(client);
  const created = await createBdb(client, { name: "orders", memory_size: 1024 ** 3 });
  assertEquals((await getBdb(client, created.uid)).memory_size, 1024 ** 3);
  assertEquals((await listBdbs(client)).length, before.length + 1);
  assertEquals((await updateBdb(client, created.uid, { memory_size: 2 * 1024 ** 3 })).memory_size, 2 * 1024 ** 3);
  await deleteBdb(client, created.uid);
  const gone = await assertRejects(() => getBdb(client, created.uid)) as StoreCtlError;
  assertEquals(gone.code, "not_found");
});
