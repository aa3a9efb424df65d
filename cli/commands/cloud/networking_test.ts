import { assertEquals, assertMatch } from "../../../tests/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../tests/ctl_in_process.ts";

const env = EMULATOR_ENV;
const TTY = { env, tty: { stdout: true }, columns: 200 };

Deno.test("cloud peering list, private-service-connect get, transit-gateway list: per subscription, columns, JSON", async () => {
  await using ctl = await inProcessCtl();
  const sub = (await ctl(["cloud", "subscription", "list", "-q", "[0].id", "--raw"], { env })).stdout.trim();
  const peerings = await ctl(["cloud", "peering", "list", "--subscription", sub], TTY);
  assertEquals(peerings.code, 0, peerings.stderr);
  assertMatch(peerings.stdout.split("\n")[1], /^│ ID +│ STATUS │ VPC +│ CIDR +│ CLOUD ACCOUNT │$/);
  assertMatch(peerings.stdout.split("\n")[2], /^│ \d+ +│ active │ vpc-[0-9a-f]+ │ 10\.10\.0\.0\/16 │ 123456789012 +│$/);
  assertEquals(peerings.requests, [`GET /v1/subscriptions/${sub}/peerings?offset=0&limit=100`]);
  const psc = await ctl(["cloud", "private-service-connect", "get", "--subscription", sub], TTY);
  assertMatch(psc.stdout.split("\n")[1], /^│ ID +│ STATUS │ HOST NAME +│ SERVICE ATTACHMENT │$/);
  assertMatch(psc.stdout.split("\n")[2], new RegExp(`^│ \\d+ +│ active │ psc-${sub}\\.example\\.net │ sa-${sub} +│$`));
  const tgw = await ctl(["cloud", "transit-gateway", "list", "--subscription", sub, "-o", "json"], { env });
  assertEquals(JSON.parse(tgw.stdout)[0].attachmentStatus, "available");
  const tgwTable = await ctl(["cloud", "transit-gateway", "list", "--subscription", sub], TTY);
  assertMatch(tgwTable.stdout.split("\n")[1], /^│ ID +│ GATEWAY +│ ATTACHMENT │ STATUS +│$/);
  for (const argv of [["peering", "list"], ["private-service-connect", "get"], ["transit-gateway", "list"]]) {
    const none = await ctl(["cloud", ...argv], { env });
    assertEquals([none.code, none.requests], [2, []]);
    assertMatch(none.stderr, /--subscription is required/);
    const unknown = await ctl(["cloud", ...argv, "--subscription", "42"], { env });
    assertEquals([unknown.code, unknown.requests.length], [5, 1]);
  }
});
