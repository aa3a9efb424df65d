import { assert, assertEquals, assertMatch } from "../../../testing/assert.ts";

const RUNTIME = new URL("../deno.ts", import.meta.url).href;

/**
 * A listener in a process with at most 128 open files, all but a few of them taken, so that
 * `accept()` fails with EMFILE before the connection ceiling (64) is reached.
 */
const FIXTURE = `
const { runtime } = await import(${JSON.stringify(RUNTIME)});
const listener = await runtime.serve({
  port: 0,
  fetch: () => new Response("ok"),
  log: (level, line) => console.error(level, line),
});
Deno.addSignalListener("SIGTERM", () => Deno.exit(0)); // registered while descriptors are left
const held = [];
try {
  for (;;) held.push(Deno.openSync("/dev/null"));
} catch { /* the limit */ }
for (const file of held.splice(0, 4)) file.close();
console.log("listening on " + listener.url);
`;

Deno.test("denoServe() survives accept() failing with EMFILE, and serves again once descriptors are free", async () => {
  const fixture = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(fixture, FIXTURE);
  const child = new Deno.Command("bash", {
    args: ["-c", `ulimit -n 128 && exec "$0" run -A "$1"`, Deno.execPath(), fixture],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  while (!/listening on (\S+)/.test(output)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the fixture ended: ${output}\n${await stderr}`);
    output += value;
  }
  const url = output.match(/listening on (\S+)/)![1];
  const { hostname, port } = new URL(url);
  const conns: Deno.Conn[] = [];
  for (let i = 0; i < 20; i++) conns.push(await Deno.connect({ hostname, port: Number(port) }));
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const conn of conns) conn.close();
  let status = 0;
  for (let i = 0; i < 50 && status !== 200; i++) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.body?.cancel();
      status = res.status;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    child.kill("SIGTERM");
  } catch (error) {
    throw new Error(`the fixture ended early: ${await stderr}`, { cause: error });
  }
  await child.status;
  await reader.cancel();
  await Deno.remove(fixture);
  assertEquals(status, 200);
  const log = await stderr;
  assertMatch(log, /^warn cannot accept connections \(\d+ open\): Too many open files/m);
  // One line per episode of failures, not one per failed attempt.
  const episodes = log.match(/^warn cannot accept/mg)?.length ?? 0;
  assert(episodes >= 1 && episodes <= 3, log);
});
