import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { inProcessCtl } from "../testing/ctl_in_process.ts";

const OLD = `default_cloud = "lab"

[profiles.lab]
deployment = "cloud"
api_key = "old-key"
api_secret = "old-secret"
`;

Deno.test("config version: an old file is read as it is, migrated on the first write, the old one kept beside it", async () => {
  await using ctl = await inProcessCtl();
  const file = `${ctl.dir}/config.toml`;
  await Deno.writeTextFile(file, OLD, { mode: 0o600 });
  const listed = await ctl(["profile", "list", "-o", "json"]);
  assertEquals(listed.code, 0, listed.stderr);
  assertEquals(await Deno.readTextFile(file), OLD, "a read changes nothing");

  const set = await ctl(["profile", "set", "prod", "--deployment", "cloud", "--api-key", "k2", "--api-secret", "s2"]);
  assertEquals(set.code, 0, set.stderr);
  const now = await Deno.readTextFile(file);
  assert(now.startsWith("version = 1\n"), now);
  assertMatch(now, /\[profiles\.lab\][\s\S]*api_key = "old-key"/);
  assertMatch(now, /\[profiles\.prod\]/);
  assertEquals(await Deno.readTextFile(`${file}.v0.bak`), OLD);
  assertEquals((await Deno.stat(`${file}.v0.bak`)).mode! & 0o777, 0o600);

  await ctl(["profile", "remove", "prod", "--yes"]);
  assert((await Deno.readTextFile(file)).startsWith("version = 1\n"), "a current file stays current");
});

Deno.test("config version: a newer file is refused, read or write, and left as it is", async () => {
  await using ctl = await inProcessCtl();
  const file = `${ctl.dir}/config.toml`;
  const newer = `version = 2\n\n[profiles.lab]\ndeployment = "cloud"\n`;
  await Deno.writeTextFile(file, newer);
  for (const words of [["profile", "list"], ["profile", "set", "x", "--deployment", "cloud"]]) {
    const run = await ctl(words);
    assertEquals(run.code, 3, `${words}: ${run.stderr}`);
    assertMatch(run.stderr, /is a version 2 config, written by a newer ctl; this ctl reads versions up to 1/);
    assertMatch(run.stderr, /tip: Upgrade ctl/);
  }
  assertEquals(await Deno.readTextFile(file), newer);
  await Deno.writeTextFile(file, 'version = "one"\n');
  assertMatch((await ctl(["profile", "list"])).stderr, /version must be a whole number; got "one"/);
});
