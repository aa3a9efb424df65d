import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../testing/ctl_in_process.ts";

const env = EMULATOR_ENV;

Deno.test("--dry-run: a create prints its request as curl, secrets redacted, sends nothing that changes, exits 0", async () => {
  await using ctl = await inProcessCtl();
  const subscription = JSON.parse((await ctl(["cloud", "subscription", "list", "-o", "json"], { env })).stdout)[0].id;
  const run = await ctl([
    "cloud",
    "database",
    "create",
    "--subscription",
    String(subscription),
    "--name",
    "dry",
    "--dataset-size-gb",
    "1",
    "--wait",
    "--dry-run",
  ], { env });
  assertEquals(run.code, 0, run.stderr);
  assertMatch(run.stdout, new RegExp(`^curl -X POST 'http://cloud\\.test/v1/subscriptions/${subscription}/databases'`));
  assertMatch(run.stdout, /-H 'x-api-key: \*\*\*' -H 'x-api-secret-key: \*\*\*'/);
  assertMatch(run.stdout, /--data-binary '\{"name":"dry",.*"datasetSizeInGb":1/);
  assert(!run.stdout.includes("demo-secret") && !run.stderr.includes("demo-secret"));
  assertEquals(run.requests.filter((r) => !r.startsWith("GET ")), [], "nothing but reads was sent");
  const names = JSON.parse(
    (await ctl(["cloud", "database", "list", "--subscription", String(subscription), "-o", "json"], {
      env,
    })).stdout,
  ).map((db: { name: string }) => db.name);
  assert(!names.includes("dry"), `${names}`);
});

Deno.test("--dry-run: a delete needs no --yes (nothing to confirm); enterprise requests show Basic ***", async () => {
  await using ctl = await inProcessCtl();
  const remove = await ctl(["enterprise", "database", "delete", "1", "--dry-run"], { env });
  assertEquals(remove.code, 0, remove.stderr);
  assertMatch(
    remove.stdout,
    /^curl -X DELETE 'https:\/\/cluster\.test:9443\/v1\/bdbs\/1' .*-H 'authorization: Basic \*\*\*'/,
  );
  assertEquals(remove.requests.filter((r) => r.startsWith("DELETE")), []);
  const list = await ctl(["enterprise", "database", "list", "-o", "json", "--dry-run"], { env });
  assertEquals(list.code, 0);
  assert(Array.isArray(JSON.parse(list.stdout)), "a read runs as usual");
});
