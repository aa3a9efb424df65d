import { assertEquals, assertMatch } from "../../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../testing/ctl_in_process.ts";
import { keyValues } from "../../../testing/table_text.ts";

const env = EMULATOR_ENV;
const TTY = { env, tty: { stdout: true }, columns: 200 };

Deno.test("cloud peering list, private-service-connect get, transit-gateway list: the real routes, columns, JSON", async () => {
  await using ctl = await inProcessCtl({ quirks: new Set(["strict-routes"]) });
  const sub = (await ctl(["cloud", "subscription", "list", "-q", "[0].id", "--raw"], { env })).stdout.trim();
  const peerings = await ctl(["cloud", "peering", "list", "--subscription", sub], TTY);
  assertEquals(peerings.code, 0, peerings.stderr);
  assertMatch(peerings.stdout.split("\n")[1], /^│ ID +│ STATUS │ VPC +│ CIDR +│ CLOUD ACCOUNT │ REGION +│$/);
  assertMatch(
    peerings.stdout.split("\n")[2],
    /^│ \d+ +│ active │ vpc-[0-9a-f]+ │ 10\.10\.0\.0\/16 │ 123456789012 +│ us-east-1 │$/,
  );
  assertEquals(peerings.requests, [`GET /v1/subscriptions/${sub}/peerings`]);
  const psc = await ctl(["cloud", "private-service-connect", "get", "--subscription", sub], TTY);
  assertEquals([psc.code, psc.requests], [0, [`GET /v1/subscriptions/${sub}/private-service-connect`]], psc.stderr);
  const service = keyValues(psc.stdout);
  assertEquals(Object.keys(service), ["ID", "STATUS", "HOST NAME", "SERVICE ATTACHMENT"]);
  assertMatch(service.ID, /^\d+$/);
  assertEquals([service.STATUS, service["SERVICE ATTACHMENT"]], ["active", `service-attachment-c${sub}`]);
  assertMatch(service["HOST NAME"], new RegExp(`^psc\\.c${sub}\\.\\S+$`));
  const tgw = await ctl(["cloud", "transit-gateway", "list", "--subscription", sub, "-o", "json"], { env });
  assertEquals([tgw.requests, JSON.parse(tgw.stdout)[0].attachmentStatus], [
    [`GET /v1/subscriptions/${sub}/transitGateways`],
    "available",
  ]);
  const tgwTable = await ctl(["cloud", "transit-gateway", "list", "--subscription", sub], TTY);
  assertMatch(tgwTable.stdout.split("\n")[1], /^│ ID +│ GATEWAY +│ ATTACHMENT │ STATUS +│ AWS ACCOUNT +│ CIDRS +│$/);
  for (const argv of [["peering", "list"], ["private-service-connect", "get"], ["transit-gateway", "list"]]) {
    const none = await ctl(["cloud", ...argv], { env });
    assertEquals([none.code, none.requests], [2, []]);
    assertMatch(none.stderr, /--subscription is required/);
    const unknown = await ctl(["cloud", ...argv, "--subscription", "42"], { env });
    assertEquals([unknown.code, unknown.requests.length], [5, 1]);
  }
});

Deno.test("cloud networking reads that answer a task: ctl waits for it and prints the resource", async () => {
  await using ctl = await inProcessCtl({ quirks: new Set(["networking-tasks", "task-404"]), taskDelayMs: 300 });
  const sub = (await ctl(["cloud", "subscription", "list", "-q", "[0].id", "--raw"], { env })).stdout.trim();
  const wait = ["--wait-interval", "0.1"];
  const peerings = await ctl(["cloud", "peering", "list", "--subscription", sub, ...wait, "-o", "json"], { env });
  assertEquals(peerings.code, 0, peerings.stderr);
  assertEquals(JSON.parse(peerings.stdout).map((p: { status: string }) => p.status), ["active"]);
  assertEquals(peerings.requests[0], `GET /v1/subscriptions/${sub}/peerings`);
  assertMatch(peerings.requests.at(-1)!, /^GET \/v1\/tasks\/[0-9a-f-]+$/);
  const psc = await ctl(["cloud", "private-service-connect", "get", "--subscription", sub, ...wait, "-q", "status"], {
    env,
  });
  assertEquals([psc.code, psc.stdout], [0, '"active"\n'], psc.stderr);
  const tgws = await ctl(["cloud", "transit-gateway", "list", "--subscription", sub, ...wait, "-q", "[].awsTgwUid"], {
    env,
  });
  assertEquals(tgws.code, 0, tgws.stderr);
  assertMatch(JSON.parse(tgws.stdout)[0], /^tgw-/);
  // On a terminal, the wait shows as --wait shows it.
  const shown = await ctl(["cloud", "peering", "list", "--subscription", sub, ...wait], {
    ...TTY,
    tty: { stdout: true, stderr: true },
  });
  assertMatch(shown.stderr, /Task [0-9a-f-]+: (not visible yet|received|initialized|processing-in-progress)/);
});
