import { assertEquals, assertMatch } from "../testing/assert.ts";
import { tip } from "../testing/tools.ts";

const ROOT = new URL("..", import.meta.url).pathname;

Deno.test("run_tests.ts reports a test whose tool is missing as skipped, not passed", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/fixture_test.ts`,
      `import { missingTools } from "${ROOT}testing/tools.ts";\n` +
        `Deno.test("needs a tool", { ignore: missingTools("storectl-no-such-tool") }, () => {});\n` +
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
    const [reasons, summary] = stdout.trim().split("\n").slice(-2);
    assertEquals(summary, "1 passed, 0 failed");
    assertEquals(reasons, `1 skipped: ${tip("storectl-no-such-tool")}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tip() names the Debian package, not the command", () => {
  assertMatch(tip("dbus-run-session"), /apt-get install -y dbus\)/);
  assertMatch(tip("gnome-keyring-daemon"), /apt-get install -y gnome-keyring\)/);
  assertMatch(tip("redis-server"), /apt-get install -y redis-server\)/);
});
