import { assert, assertEquals } from "../testing/assert.ts";
import { startEmulator } from "../testing/emulator_process.ts";
import { assertEmulatorBodyLimit } from "../testing/oversized_body.ts";
import { assertDocsOffline } from "../testing/docs_page.ts";
import { missingTools, requireTool } from "../testing/tools.ts";
import { bundleAll } from "../tools/bundle.ts";
import { startRedis } from "../testing/redis_server.ts";
import { startServer } from "../testing/server_process.ts";
import { storeOutageScenario } from "./store_outage_scenario.ts";
import { PIPELINE_SCENARIOS, twoServersScenario } from "./pipelines_scenario.ts";

Deno.test("node bundles: built by tools/bundle.ts, they run on Node", { ignore: missingTools("node") }, async (t) => {
  const node = requireTool("node");
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

    await t.step("the emulator answers a 500 MB body, declared or chunked, with 413 without reading it", async () => {
      await using emulator = await startEmulator([], [node, `${dir}/emulator.mjs`]);
      await assertEmulatorBodyLimit(emulator);
    });

    await t.step("the server answers /health and stops on SIGTERM", async () => {
      const server = await startServer([`${dir}/server.mjs`]);
      const res = await fetch(`${server.url}/health`);
      assertEquals(await res.json(), { status: "healthy", store: "memory" });
      assertEquals(await server.stop(), 0);
    });

    await t.step("the server serves /docs with Swagger UI's assets from the bundle, offline", async () => {
      const server = await startServer([`${dir}/server.mjs`]);
      await assertDocsOffline((path) => fetch(`${server.url}${path}`));
      assertEquals(await server.stop(), 0);
    });

    await t.step("the server on a port in use exits 1 with one line naming the address and the fix", async () => {
      using held = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (held.addr as Deno.NetAddr).port;
      const out = await new Deno.Command(node, {
        args: [`${dir}/server.mjs`],
        env: { PORT: String(port) },
        stdout: "null",
        stderr: "piped",
      }).output();
      assertEquals([out.code, new TextDecoder().decode(out.stderr)], [
        1,
        `storectl server cannot listen on 127.0.0.1:${port}: the address is already in use; ` +
        "stop the other process or set PORT (0 picks a free port)\n",
      ]);
    });

    await t.step({
      name: "two Node servers on one Redis answer the same searches after an ingest through one",
      ignore: missingTools("redis-server"),
      fn: () => twoServersScenario([node, `${dir}/server.mjs`]),
    });

    for (const scenario of PIPELINE_SCENARIOS) {
      await t.step({
        name: `Node server: ${scenario.name}`,
        ignore: missingTools(...scenario.tools),
        fn: () => scenario.run([node, `${dir}/server.mjs`]),
      });
    }

    await t.step("the server rate-limits through Redis on Node", async () => {
      await using redis = await startRedis();
      const server = await startServer([`${dir}/server.mjs`], { STORE_URL: redis.url });
      const url = `${server.url}/api/RateLimited/sliding`;
      const statuses = [];
      for (let i = 0; i < 12; i++) {
        const res = await fetch(url, { headers: { authorization: `Basic ${btoa("alice:x")}` } });
        await res.body?.cancel();
        statuses.push(res.status);
      }
      assertEquals(statuses, [...Array(10).fill(200), 429, 429]);
      assertEquals(await server.stop(), 0);
    });

    await t.step(
      "on Redis stalled, then killed: 503 within STORE_TIMEOUT_MS, recovery, two log lines per outage",
      () => storeOutageScenario([`${dir}/server.mjs`]),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
