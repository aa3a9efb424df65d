import { assertEquals, assertMatch } from "../../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../testing/ctl_in_process.ts";
import { tableCells, tableRows } from "../../../testing/table_text.ts";

const env = EMULATOR_ENV;
const table = { env, tty: { stdout: true }, columns: 200 };

Deno.test("enterprise user list and get: uid, name, email, role, auth, status", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl(["enterprise", "user", "list"], table);
  assertEquals(tableCells(r.stdout)[0], ["UID", "NAME", "EMAIL", "ROLE", "AUTH", "STATUS"]);
  assertEquals(tableRows(r.stdout)[1], {
    UID: "2",
    NAME: "Viewer",
    EMAIL: "viewer@example.com",
    ROLE: "db_viewer",
    AUTH: "regular",
    STATUS: "active",
  });
  const one = await ctl(["enterprise", "user", "get", "2", "-q", "email", "--raw"], { env });
  assertEquals(one.stdout, "viewer@example.com\n");
  assertEquals((await ctl(["enterprise", "user", "get", "7"], { env })).code, 5);
  assertEquals((await ctl(["enterprise", "user", "get", "me"], { env })).requests, []);
});

Deno.test("enterprise user create: --password or --password-stdin; the password is never printed", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl([
    "enterprise",
    "user",
    "create",
    "--email",
    "ops@example.com",
    "--password-stdin",
    "--role",
    "db_member",
  ], {
    env,
    stdin: "s3cret-pass\n",
  });
  assertEquals([r.code, r.requests], [0, ["POST /v1/users"]], r.stderr);
  const user = JSON.parse(r.stdout);
  assertEquals([user.email, user.role, user.password], ["ops@example.com", "db_member", undefined]);
  assertEquals(r.stdout.includes("s3cret"), false);
  const flagged = await ctl([
    "enterprise",
    "user",
    "create",
    "--email",
    "b@example.com",
    "--password",
    "x",
    "--name",
    "B",
  ], {
    env,
  });
  assertEquals([flagged.code, JSON.parse(flagged.stdout).name], [0, "B"]);
  const both = await ctl([
    "enterprise",
    "user",
    "create",
    "--email",
    "c@example.com",
    "--password",
    "x",
    "--password-stdin",
  ], {
    env,
    stdin: "y",
  });
  assertEquals([both.code, both.requests], [2, []]);
  const none = await ctl(["enterprise", "user", "create", "--email", "c@example.com"], { env });
  assertEquals([none.code, none.requests], [2, []]);
  assertMatch(none.stderr, /Missing --password or --password-stdin \(or "password" in --data\)/);
  const empty = await ctl(["enterprise", "user", "create", "--email", "c@example.com", "--password-stdin"], { env });
  assertEquals([empty.code, empty.requests], [2, []]);
  const again = await ctl(["enterprise", "user", "create", "-d", '{"email":"ops@example.com","password":"z"}'], {
    env,
  });
  assertEquals(again.code, 7);
});

Deno.test("enterprise role list and acl list: uid, name and what each grants", async () => {
  await using ctl = await inProcessCtl();
  const roles = await ctl(["enterprise", "role", "list"], table);
  assertEquals(tableCells(roles.stdout)[0], ["UID", "NAME", "MANAGEMENT"]);
  assertEquals(tableRows(roles.stdout).map((row) => row.MANAGEMENT), [
    "admin",
    "cluster_member",
    "cluster_viewer",
    "db_member",
    "db_viewer",
    "none",
  ]);
  const acls = await ctl(["enterprise", "acl", "list"], table);
  assertEquals(tableCells(acls.stdout)[0], ["UID", "NAME", "ACL"]);
  assertEquals(tableRows(acls.stdout)[1], { UID: "2", NAME: "Read Only", ACL: "+@read ~*" });
  const names = await ctl(["enterprise", "acl", "list", "-q", "[].name", "--raw"], { env });
  assertEquals(names.stdout, "Full Access\nRead Only\nNot Dangerous\n");
  assertEquals(JSON.parse((await ctl(["enterprise", "role", "list", "-o", "json"], { env })).stdout).length, 6);
});
