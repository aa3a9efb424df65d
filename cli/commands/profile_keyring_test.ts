import { assertEquals, assertMatch } from "../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../testing/ctl_in_process.ts";

Deno.test("profile set --use-keyring stores passwords and secrets in the keyring, keyring:<entry> in the file", async () => {
  await using ctl = await inProcessCtl();
  const keyring: Record<string, string> = {};
  const set = await ctl([
    "profile",
    "set",
    "lab",
    "--deployment",
    "enterprise",
    "--url",
    EMULATOR_ENV.STORE_ENTERPRISE_URL,
    "--username",
    "admin@example.com",
    "--password",
    "demo-password",
    "--use-keyring",
  ], { keyring });
  assertEquals(set.code, 0, set.stderr);
  assertMatch(set.stderr, /Stored password in the system keyring \(entries 'lab:<key>'\)/);
  assertEquals(keyring, { "lab:password": "demo-password" });
  const file = await Deno.readTextFile(`${ctl.dir}/config.toml`);
  assertMatch(file, /^password = "keyring:lab:password"$/m);
  assertEquals(file.includes("demo-password"), false);
  // The stored reference authenticates: the cluster answers with the password from the keyring.
  const status = await ctl(["enterprise", "node", "list", "-q", "length(@)"], { keyring });
  assertEquals([status.code, status.stdout], [0, "3\n"], status.stderr);
  const nothing = await ctl(["profile", "set", "lab", "--username", "x", "--use-keyring"], { keyring });
  assertEquals(nothing.code, 2);
  assertMatch(nothing.stderr, /--use-keyring needs a secret to store/);
});
