import { assert, assertEquals } from "./assert.ts";
import { startEmulator } from "./emulator_process.ts";
import { requireTool } from "./tools.ts";

const ROOT = new URL("..", import.meta.url).pathname;

async function bundle(entry: string, out: string) {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform", "node", "-o", out, `${ROOT}${entry}`],
    cwd: ROOT,
    env: { DENO_NO_PACKAGE_JSON: "1" },
    stderr: "piped",
  }).output();
  assertEquals(result.code, 0, new TextDecoder().decode(result.stderr));
}

Deno.test("node bundle: the emulator serves both APIs on Node, TLS included, and streams debuginfo", async () => {
  const node = await requireTool("node");
  if (!node) return;
  const dir = await Deno.makeTempDir();
  try {
    await bundle("server/emulator/main.ts", `${dir}/emulator.mjs`);
    await using emulator = await startEmulator(["--tls", "--debuginfo-mb", "2"], [node, `${dir}/emulator.mjs`]);
    const cloud = await fetch(`${emulator.cloudUrl}/regions`, {
      headers: { "x-api-key": "demo-key", "x-api-secret-key": "demo-secret" },
    });
    assertEquals(cloud.status, 200);
    await cloud.body?.cancel();
    const client = Deno.createHttpClient({ caCerts: [emulator.caCert!] });
    try {
      const res = await fetch(`${emulator.enterpriseUrl}/v1/debuginfo/all`, {
        client,
        headers: { authorization: `Basic ${btoa("admin@example.com:demo-password")}` },
      });
      let size = 0;
      for await (const chunk of res.body!.pipeThrough(new DecompressionStream("gzip"))) size += chunk.length;
      assert(size > 2 * 1024 * 1024, `tar size ${size}`);
    } finally {
      client.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("node bundle: the server answers /health on Node", async () => {
  const node = await requireTool("node");
  if (!node) return;
  const dir = await Deno.makeTempDir();
  try {
    await bundle("server/main.ts", `${dir}/server.mjs`);
    const child = new Deno.Command(node, { args: [`${dir}/server.mjs`], env: { PORT: "0" }, stdout: "piped" }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let output = "";
    while (!/listening on (\S+)/.test(output)) output += (await reader.read()).value ?? "";
    const res = await fetch(`${output.match(/listening on (\S+)/)![1]}/health`);
    assertEquals(await res.json(), { status: "healthy", store: "memory" });
    child.kill("SIGTERM");
    assertEquals((await child.status).code, 0);
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
