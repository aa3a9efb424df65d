import { assertEquals, assertMatch } from "../../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../testing/ctl_in_process.ts";
import { keyValues } from "../../../testing/table_text.ts";

const env = EMULATOR_ENV;
const TTY = { env, tty: { stdout: true }, columns: 200 };
const WAIT = ["--wait", "--wait-interval", "0.1"];

Deno.test("cloud subscription list and get: table columns, JSON objects, --limit, ids checked first", async () => {
  await using ctl = await inProcessCtl();
  const table = await ctl(["cloud", "subscription", "list"], TTY);
  assertEquals(table.code, 0, table.stderr);
  const lines = table.stdout.split("\n");
  assertMatch(lines[1], /^│ ID +│ NAME +│ STATUS │ PROVIDER │ REGION +│ DATABASES │ PAYMENT METHOD │$/);
  assertMatch(lines[2], /^│ \d{6} │ \S+-prod +│ active │ (AWS|GCP) +│ \S+ +│ \d +│ 7001 +│$/);
  assertEquals(lines.length, 7, "three subscriptions");
  const ids = JSON.parse((await ctl(["cloud", "subscription", "list", "-q", "[].id"], { env })).stdout);
  assertEquals(ids.length, 3);
  const capped = await ctl(["cloud", "subscription", "list", "--limit", "2", "-o", "json"], { env });
  assertEquals([JSON.parse(capped.stdout).length, capped.requests], [2, ["GET /v1/subscriptions"]]);
  const one = await ctl(["cloud", "subscription", "get", String(ids[1]), "-o", "json"], { env });
  assertEquals(JSON.parse(one.stdout).id, ids[1]);
  assertEquals(typeof JSON.parse(one.stdout).cloudDetails, "object", "JSON keeps every field");
  const bad = await ctl(["cloud", "subscription", "get", "12x"], { env });
  assertEquals([bad.code, bad.requests], [2, []]);
  assertMatch(bad.stderr, /<id> must be a subscription id \(a positive whole number\); got '12x'/);
  const missing = await ctl(["cloud", "subscription", "get", "999"], { env });
  assertEquals([missing.code, missing.requests.length], [5, 1]);
  assertMatch(missing.stderr, /Subscription 999 not found/);
});

Deno.test("cloud subscription create: -d body with flags for common fields; --name required before any request", async () => {
  await using ctl = await inProcessCtl();
  const unnamed = await ctl(["cloud", "subscription", "create", "--provider", "GCP"], { env });
  assertEquals([unnamed.code, unnamed.requests], [2, []]);
  assertMatch(
    unnamed.stderr,
    /^Error: --name is required\n {2}tip: Give --name <name>, or a "name" field in the -d body/,
  );
  await Deno.writeTextFile(
    `${ctl.dir}/sub.json`,
    JSON.stringify({
      name: "from-file",
      cloudProviders: [{
        provider: "AWS",
        regions: [{ region: "us-east-1", networking: { deploymentCIDR: "10.0.0.0/24" } }],
      }],
    }),
  );
  const made = await ctl([
    "cloud",
    "subscription",
    "create",
    "-d",
    "@sub.json",
    "--name",
    "analytics",
    "--region",
    "eu-west-1",
    ...WAIT,
    "-o",
    "json",
  ], { env });
  assertEquals(made.code, 0, made.stderr);
  const sub = JSON.parse(made.stdout);
  assertEquals([sub.name, sub.cloudDetails[0].regions[0].region, sub.status], ["analytics", "eu-west-1", "active"]);
  assertEquals(made.requests.at(-1), `GET /v1/subscriptions/${sub.id}`);
  const started = await ctl(["cloud", "subscription", "create", "--name", "later"], { env });
  assertEquals(started.code, 0, started.stderr);
  assertMatch(started.stderr, /^Task \S+ is received; wait for it with: ctl cloud task wait \S+\n$/);
});

Deno.test("cloud subscription update and delete: changes, confirmation, and a refused delete exits 8", async () => {
  await using ctl = await inProcessCtl();
  const id = (await ctl(["cloud", "subscription", "list", "-q", "[0].id", "--raw"], { env })).stdout.trim();
  const nothing = await ctl(["cloud", "subscription", "update", id], { env });
  assertEquals([nothing.code, nothing.requests], [2, []]);
  const renamed = await ctl(["cloud", "subscription", "update", id, "--name", "renamed", ...WAIT], TTY);
  assertEquals(renamed.code, 0, renamed.stderr);
  assertEquals([keyValues(renamed.stdout).ID, keyValues(renamed.stdout).NAME], [id, "renamed"]);
  const unconfirmed = await ctl(["cloud", "subscription", "delete", id], { env });
  assertEquals([unconfirmed.code, unconfirmed.requests], [2, []]);
  assertMatch(unconfirmed.stderr, new RegExp(`Delete subscription ${id}: confirm with --yes`));
  const refused = await ctl(["cloud", "subscription", "delete", id, "--yes", ...WAIT], { env });
  assertEquals(refused.code, 8);
  assertMatch(
    refused.stderr,
    new RegExp(`failed: Subscription ${id} still has \\d database\\(s\\); delete them first`),
  );

  const empty = (await ctl(["cloud", "subscription", "create", "--name", "empty", ...WAIT, "-q", "id"], { env }))
    .stdout.trim();
  const deleted = await ctl(["cloud", "subscription", "delete", empty, ...WAIT, "-q", "status", "--raw"], {
    env,
    tty: { stdin: true },
    answers: [true],
  });
  assertEquals([deleted.code, deleted.stdout, ctl.questions.at(-1)], [
    0,
    "processing-completed\n",
    `Delete subscription ${empty}?`,
  ]);
  assertEquals((await ctl(["cloud", "subscription", "get", empty], { env })).code, 5);
});
