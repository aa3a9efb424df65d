import { assertEquals, assertMatch } from "../../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../testing/ctl_in_process.ts";
import { flag } from "../../framework/params.ts";
import { group } from "../../framework/spec.ts";
import { taskCommand } from "./wait.ts";

/** A command like `cloud database create`, built on taskCommand. */
const create = taskCommand({
  summary: "create a database",
  flags: { gb: flag.number("memory", { min: 0.1, max: 1000, default: 1 }) },
  output: { columns: [{ header: "ID", value: "databaseId" }, { header: "NAME", value: "name" }] },
  async resolve(task, f) {
    const db = task.response!;
    return await (await f.cloud()).get(`/subscriptions/${db.additionalResourceId}/databases/${db.resourceId}`);
  },
  async start({ flags }, f) {
    const client = await f.cloud();
    const { subscriptions } = await client.get<{ subscriptions: { id: number }[] }>("/subscriptions");
    return await client.send("POST", `/subscriptions/${subscriptions[0].id}/databases`, {
      name: `w-${crypto.randomUUID().slice(0, 6)}`,
      datasetSizeInGb: flags.gb,
    });
  },
});
const ROOT = group("test", { create });

Deno.test("a command that waits: --wait prints what the task made; without it the task and the command to follow it", async () => {
  await using ctl = await inProcessCtl({}, ROOT);
  const waited = await ctl(["create", "--wait", "-o", "json"], { env: EMULATOR_ENV });
  assertEquals(waited.code, 0, waited.stderr);
  assertMatch(JSON.parse(waited.stdout).name, /^w-/);
  const started = await ctl(["create"], { env: EMULATOR_ENV });
  assertEquals(started.code, 0);
  const ref = JSON.parse(started.stdout);
  assertEquals(ref.status, "received");
  assertEquals(started.stderr, `Task ${ref.taskId} is received; wait for it with: ctl cloud task wait ${ref.taskId}\n`);
  const failed = await ctl(["create", "--wait", "--gb", "500"], { env: EMULATOR_ENV });
  assertEquals(failed.code, 8);
  assertMatch(failed.stderr, /^Error: Task .* failed: /);
});
