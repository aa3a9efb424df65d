import { assert, assertEquals } from "./assert.ts";
import { startEmulator } from "./emulator_process.ts";
import { requireTool } from "./tools.ts";
import { bundleAll } from "../tools/bundle.ts";
import { startRedis } from "./redis_server.ts";

Deno.test("node bundles: built by tools/bundle.ts, they run on Node", async (t) => {
  const node = await requireTool("node");
  if (!node) return;
  const dir = await Deno.makeTempDir();
  try {
    await bundleAll(dir);

    await t.step("the emulator serves both APIs, TLS included, and streams debuginfo", async () => {
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
    });

    await t.step("the server answers /health and stops on SIGTERM", async () => {
      const child = new Deno.Command(`${dir}/server.mjs`, { env: { PORT: "0" }, stdout: "piped" }).spawn();
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let output = "";
      while (!/listening on (\S+)/.test(output)) output += (await reader.read()).value ?? "";
      const res = await fetch(`${output.match(/listening on (\S+)/)![1]}/health`);
      assertEquals(await res.json(), { status: "healthy", store: "memory" });
      child.kill("SIGTERM");
      assertEquals((await child.status).code, 0);
      reader.releaseLock();
      await child.stdout.cancel().catch(() => {});
    });
    await t.step("the server rate-limits through Redis on Node", async () => {
      await using redis = await startRedis();
      if (!redis) return;
      const env = { PORT: "0", STORE_URL: redis.url };
      const child = new Deno.Command(`${dir}/server.mjs`, { env, stdout: "piped" }).spawn();
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let output = "";
      while (!/listening on (\S+)/.test(output)) output += (await reader.read()).value ?? "";
      const url = `${output.match(/listening on (\S+)/)![1]}/api/RateLimited/sliding`;
      const statuses = [];
      for (let i = 0; i < 12; i++) {
        const res = await fetch(url, { headers: { authorization: `Basic ${btoa("alice:x")}` } });
        await res.body?.cancel();
        statuses.push(res.status);
      }
      assertEquals(statuses, [...Array(10).fill(200), 429, 429]);
      child.kill("SIGTERM");
      assertEquals((await child.status).code, 0);
      reader.releaseLock();
      await child.stdout.cancel().catch(() => {});
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
