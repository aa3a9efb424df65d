import { assertEquals } from "../testing/assert.ts";
import { userEnv } from "../testing/tools.ts";

const ROOT = new URL("..", import.meta.url).pathname;

async function run(args: string[], cwd: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env: userEnv(),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

Deno.test("deno task ctl and deno run cli/main.ts work as they are, leave deno.lock alone, and resolve paths against the caller", async () => {
  const lock = await Deno.readTextFile(`${ROOT}deno.lock`);
  const caller = await Deno.makeTempDir();
  try {
    const direct = await run(["run", "-A", "cli/main.ts", "--version"], ROOT);
    assertEquals([direct.code, direct.stderr], [0, ""]);
    const task = await run(
      [
        "task",
        "--config",
        `${ROOT}deno.json`,
        "ctl",
        "--config-file",
        "rel.toml",
        "profile",
        "set",
        "x",
        "--deployment",
        "cloud",
        "--api-key",
        "k",
      ],
      caller,
    );
    assertEquals(task.code, 0, task.stderr);
    assertEquals((await Deno.stat(`${caller}/rel.toml`)).isFile, true);
    assertEquals(await Deno.readTextFile(`${ROOT}deno.lock`), lock);
  } finally {
    await Deno.remove(caller, { recursive: true });
  }
});
