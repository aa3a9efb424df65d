import { assertEquals, assertMatch } from "../../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../testing/ctl_in_process.ts";

const env = EMULATOR_ENV;
const TTY = { env, tty: { stdout: true }, columns: 200 };

Deno.test("cloud acl user, role and rule list: columns for people, JSON objects", async () => {
  await using ctl = await inProcessCtl();
  const users = await ctl(["cloud", "acl", "user", "list"], TTY);
  assertEquals(users.code, 0, users.stderr);
  assertMatch(users.stdout.split("\n")[1], /^│ ID +│ NAME +│ ROLE +│ STATUS │$/);
  assertMatch(users.stdout.split("\n")[2], /^│ 301 │ app-reader │ Read-Only +│ active │$/);
  const roles = await ctl(["cloud", "acl", "role", "list"], TTY);
  assertMatch(roles.stdout.split("\n")[1], /^│ ID +│ NAME +│ RULES +│ USERS +│$/);
  assertMatch(roles.stdout.split("\n")[3], /^│ 402 │ Read-Write │ Read-Write │ app-writer │$/);
  const rules = await ctl(["cloud", "acl", "rule", "list"], TTY);
  assertMatch(rules.stdout.split("\n")[1], /^│ ID +│ NAME +│ ACL +│ DEFAULT │ STATUS │$/);
  assertMatch(rules.stdout.split("\n")[4], /^│ 9 +│ Read-Only +│ \+@read ~\* +│ true +│ active │$/);
  assertEquals(rules.requests, ["GET /v1/acl/redisRules"]);
  const json = JSON.parse((await ctl(["cloud", "acl", "role", "list", "-o", "json"], { env })).stdout);
  assertEquals(json[0].redisRules, [{ ruleId: 9, ruleName: "Read-Only", databases: [] }]);
  const missing = await ctl(["cloud", "acl", "user"], { env });
  assertEquals(missing.code, 2);
  assertMatch(missing.stderr, /'ctl cloud acl user' needs a command: list/);
});
