import { assertEquals, assertMatch } from "./assert.ts";

const MAIN = new URL("../server/main.ts", import.meta.url).pathname;

Deno.test("server process: starts on the embedded store, answers /health, stops on SIGTERM", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN],
    env: { PORT: "0", DENO_NO_PACKAGE_JSON: "1" },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  while (!/listening on (\S+)/.test(output)) output += (await reader.read()).value ?? "";
  const url = output.match(/listening on (\S+)/)![1];
  const res = await fetch(`${url}/health`);
  assertEquals(await res.json(), { status: "healthy", store: "memory" });
  child.kill("SIGTERM");
  assertEquals((await child.status).code, 0);
  reader.releaseLock();
  await child.stdout.cancel().catch(() => {});
});

Deno.test("server process: an invalid PORT exits 2 naming the variable", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN],
    env: { PORT: "eighty", DENO_NO_PACKAGE_JSON: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 2);
  assertMatch(new TextDecoder().decode(out.stderr), /PORT must be a whole number/);
});
