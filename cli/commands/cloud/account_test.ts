import { assertEquals, assertMatch } from "../../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../testing/ctl_in_process.ts";
import { keyValues } from "../../../testing/table_text.ts";

const env = EMULATOR_ENV;
const TTY = { env, tty: { stdout: true }, columns: 200 };

Deno.test("cloud account get: KEY/VALUE rows for people, the whole account as JSON", async () => {
  await using ctl = await inProcessCtl();
  const table = await ctl(["cloud", "account", "get"], TTY);
  assertEquals(table.code, 0, table.stderr);
  const fields = keyValues(table.stdout);
  assertEquals(Object.keys(fields), ["ID", "NAME", "MARKETPLACE", "API KEY", "CREATED"]);
  assertMatch(fields.ID, /^\d+$/);
  assertEquals(Object.values(fields).slice(1), ["Example Org", "active", "emulator-key", "2026-01-01T00:00:00Z"]);
  const json = JSON.parse((await ctl(["cloud", "account", "get", "-o", "json"], { env })).stdout);
  assertEquals([json.name, json.key.name], ["Example Org", "emulator-key"]);
  const id = await ctl(["cloud", "account", "get", "-q", "id", "--raw"], { env });
  assertEquals(id.stdout, `${json.id}\n`);
});

Deno.test("cloud payment-method list and region list: columns, JSON, --limit cuts the one read", async () => {
  await using ctl = await inProcessCtl();
  const methods = await ctl(["cloud", "payment-method", "list"], TTY);
  const lines = methods.stdout.split("\n");
  assertMatch(lines[1], /^│ ID +│ TYPE +│ CARD +│ NAME ON CARD │ EXPIRES │$/);
  assertMatch(lines[2], /^│ 7001 │ Visa +│ …4242 │ Example Org +│ 12\/2030 │$/);
  assertEquals(methods.requests, ["GET /v1/payment-methods"]);
  // A real region is a name and a provider: no zones, no id.
  const regions = await ctl(["cloud", "region", "list"], TTY);
  assertMatch(regions.stdout.split("\n")[1], /^│ NAME +│ PROVIDER │$/);
  assertMatch(regions.stdout, /│ europe-west1 +│ GCP +│/);
  const gcp = await ctl(["cloud", "region", "list", "-q", "[?provider=='GCP'].name"], { env });
  assertEquals(JSON.parse(gcp.stdout), ["europe-west1", "us-central1", "asia-east1"]);
  const capped = await ctl(["cloud", "region", "list", "--limit", "3", "-o", "yaml"], { env });
  assertEquals([capped.stdout.match(/^- name: /gm)?.length, capped.requests], [3, ["GET /v1/regions"]]);
});

Deno.test("a cloud base URL without /v1 gets its 404 explained: the tip names the variable and the fixed URL", async () => {
  await using ctl = await inProcessCtl();
  const origin = new URL(EMULATOR_ENV.STORE_CLOUD_API_URL).origin;
  const run = await ctl(["cloud", "account", "get"], { env: { ...env, STORE_CLOUD_API_URL: origin } });
  assertEquals(run.code, 5, run.stderr);
  assertMatch(
    run.stderr,
    /tip: The cloud API's base URL ends in \/v1: set STORE_CLOUD_API_URL to http:\/\/cloud\.test\/v1\n/,
  );
  const set = `profile set p --deployment cloud --api-url ${origin} --api-key k --api-secret s`;
  assertEquals((await ctl(set.split(" "))).code, 0);
  const profile = await ctl(["-p", "p", "cloud", "account", "get"]);
  assertMatch(
    profile.stderr,
    /tip: The cloud API's base URL ends in \/v1: ctl profile set p --api-url http:\/\/cloud\.test\/v1\n/,
  );
  const right = await ctl(["cloud", "subscription", "get", "1"], { env });
  assertEquals(right.code, 5, right.stderr);
  assertEquals(right.stderr.includes("ends in /v1"), false, right.stderr);
});
