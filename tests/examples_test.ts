import { assertEquals } from "../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../testing/ctl_in_process.ts";

const EXAMPLES = new URL("../examples/", import.meta.url).pathname;
const env = EMULATOR_ENV;

Deno.test("examples/: docs/ctl.md's -d bodies are accepted as they are and do what they say", async () => {
  await using ctl = await inProcessCtl();
  const made = await ctl(
    [
      "cloud",
      "subscription",
      "create",
      "-d",
      `@${EXAMPLES}subscription.json`,
      "--region",
      "eu-west-1",
      "--wait",
      "-o",
      "json",
    ],
    { env },
  );
  assertEquals(made.code, 0, made.stderr);
  const subscription = JSON.parse(made.stdout);
  assertEquals([subscription.name, subscription.cloudDetails[0].regions[0].region], ["analytics", "eu-west-1"]);
  const changed = await ctl([
    "cloud",
    "database",
    "update",
    "--subscription",
    "156400",
    "--database-id",
    "51",
    "-d",
    `@${EXAMPLES}changes.json`,
    "--name",
    "orders",
    "--wait",
    "-o",
    "json",
  ], { env });
  assertEquals(changed.code, 0, changed.stderr);
  const db = JSON.parse(changed.stdout);
  assertEquals([db.name, db.datasetSizeInGb, db.dataEvictionPolicy], ["orders", 2, "allkeys-lru"]);
});
