import { assertEquals, assertMatch } from "../tests/assert.ts";
import { tip } from "../tests/tools.ts";

const ROOT = new URL("..", import.meta.url).pathname;

Deno.test("run_tests.ts reports a test whose tool is missing as skipped, not passed", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/fixture_test.ts`,
      `import { missingTools } from "${ROOT}tests/tools.ts";\n` +
        `Deno.test('needs a tool ("quoted" & <named>)', { ignore: missingTools("storectl-no-such-tool") }, () => {});\n` +
        `Deno.test("plain", () => {});\n`,
    );
    const env = { ...Deno.env.toObject() };
    delete env.CI;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${ROOT}tools/run_tests.ts`, `${dir}/fixture_test.ts`],
      env,
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const lines = stdout.trim().split("\n");
    assertEquals(lines.at(-1), "1 passed, 0 failed, 1 skipped");
    assertEquals(
      lines.at(-2),
      `skipped: needs a tool ("quoted" & <named>)`,
      "the skipped test, named above the summary",
    );
    assertMatch(stdout + new TextDecoder().decode(out.stderr), /skipped: storectl-no-such-tool is not installed/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tip() names the Debian package, not the command", () => {
  assertMatch(tip("dbus-run-session"), /apt-get install -y dbus\)/);
  assertMatch(tip("gnome-keyring-daemon"), /apt-get install -y gnome-keyring\)/);
  assertMatch(tip("redis-server"), /apt-get install -y redis-server\)/);
});
