import { assertEquals, assertMatch } from "../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../testing/ctl_in_process.ts";

const KEY = "fk-0123456789abcdef-global";

Deno.test("files-key set stores the global key; get shows it masked with its source; remove removes it", async () => {
  await using ctl = await inProcessCtl();
  const set = await ctl(["files-key", "set", KEY]);
  assertEquals(set.code, 0, set.stderr);
  assertMatch(set.stderr, /^Saved the upload key \(fk-0…obal\) as the global files_api_key in .*config\.toml\n$/);
  assertMatch(await Deno.readTextFile(`${ctl.dir}/config.toml`), new RegExp(`^files_api_key = "${KEY}"`, "m"));
  const get = await ctl(["files-key", "get", "-o", "json"]);
  assertEquals(JSON.parse(get.stdout), { key: "fk-0…obal", source: "global files_api_key" });
  assertEquals(get.stdout.includes(KEY), false);
  const removed = await ctl(["files-key", "remove"]);
  assertMatch(removed.stderr, /^Removed the global files_api_key from /);
  const none = await ctl(["files-key", "get"]);
  assertEquals(none.code, 5);
  assertMatch(none.stderr, /No upload key is set\n {2}tip: Store one with: ctl files-key set <key>/);
});

Deno.test("files-key resolves in the specification's order: env, profile, global, keyring, fallback env", async () => {
  await using ctl = await inProcessCtl();
  const keyring: Record<string, string> = { "files-api-key": "fk-from-the-keyring-0004" };
  const source = async (env: Record<string, string> = {}) =>
    JSON.parse((await ctl(["files-key", "get", "-o", "json"], { env, keyring })).stdout).source;
  await ctl(["profile", "set", "e", "--deployment", "enterprise", "--url", "https://c:9443"]);
  assertEquals(await source({ STORE_FILES_API_KEY: "fk-fallback-env-00000005" }), "keyring entry 'files-api-key'");
  delete keyring["files-api-key"];
  assertEquals(await source({ STORE_FILES_API_KEY: "fk-fallback-env-00000005" }), "STORE_FILES_API_KEY");
  await ctl(["files-key", "set", "fk-global-000000000003"]);
  assertEquals(await source({ STORE_FILES_API_KEY: "x" }), "global files_api_key");
  await ctl(["files-key", "set", "fk-profile-00000000002", "--profile", "e"]);
  assertEquals(await source(), "profile 'e' files_api_key");
  assertEquals(
    await source({ STORE_ENTERPRISE_FILES_API_KEY: "fk-env-0000000000001" }),
    "STORE_ENTERPRISE_FILES_API_KEY",
  );
  const both = await ctl(["files-key", "set", "k", "--global", "--profile", "e"]);
  assertEquals(both.code, 2);
});

Deno.test("files-key set --use-keyring keeps only keyring:<entry> in the file; remove --keyring deletes it", async () => {
  await using ctl = await inProcessCtl();
  const keyring: Record<string, string> = {};
  const set = await ctl(["files-key", "set", "-", "--use-keyring"], { keyring, stdin: `${KEY}\n` });
  assertEquals(set.code, 0, set.stderr);
  assertMatch(set.stderr, /the secret in the system keyring \(entry 'files-api-key'\)/);
  assertEquals(keyring, { "files-api-key": KEY });
  const file = await Deno.readTextFile(`${ctl.dir}/config.toml`);
  assertMatch(file, /^files_api_key = "keyring:files-api-key"$/m);
  assertEquals(file.includes(KEY), false);
  const get = await ctl(["files-key", "get", "-o", "json"], { keyring });
  assertEquals(JSON.parse(get.stdout).source, "global files_api_key (keyring entry 'files-api-key')");
  const kept = await ctl(["files-key", "remove"], { keyring });
  assertMatch(kept.stderr, /The keyring entry 'files-api-key' stays; delete it with --keyring/);
  await ctl(["files-key", "set", KEY, "--use-keyring"], { keyring });
  const removed = await ctl(["files-key", "remove", "--keyring"], { keyring });
  assertMatch(removed.stderr, /Deleted keyring entry 'files-api-key'/);
  assertEquals(keyring, {});
  // A dangling reference is a config error naming the entry and the fix.
  await ctl(["files-key", "set", KEY, "--use-keyring"], { keyring });
  const dangling = await ctl(["files-key", "get"], { keyring: {} });
  assertEquals(dangling.code, 3);
  assertMatch(dangling.stderr, /refers to keyring entry 'files-api-key', which does not exist/);
});

Deno.test("files-key: the key --upload uses comes from files-key set", async () => {
  await using ctl = await inProcessCtl();
  await ctl(["files-key", "set", "demo-files-key"]);
  const env = { ...EMULATOR_ENV, STORE_FILES_API_URL: "http://cloud.test/files/api/rest/v1" };
  const r = await ctl(["enterprise", "support-package", "cluster", "--upload", "--no-save", "-o", "json"], { env });
  assertEquals(r.code, 0, r.stderr);
  assertEquals(ctl.emulator.files().length, 1);
});
