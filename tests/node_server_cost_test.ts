import { assert } from "./assert.ts";
import { cpuSeconds } from "./process_cpu.ts";
import { missingTools, requireTool } from "./tools.ts";
import { bundleAll } from "../tools/bundle.ts";
import { startServer } from "./server_process.ts";

/** `count` keep-alive GETs of `url`, 8 at a time. */
async function burst(url: string, count: number) {
  const worker = async () => {
    for (let i = 0; i < count / 8; i++) {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

// The Node server once spent ~130 µs of CPU per `GET /` (bodyLimit read `request.body`, and
// @hono/node-server then built a full undici Request each time); it needs ~25–45 µs here. The bound
// sits between, in CPU time, which other processes on the machine barely move.
Deno.test(
  "Node bundle server: GET / costs under 80 µs of server CPU",
  { ignore: missingTools("node") },
  async () => {
    const dir = await Deno.makeTempDir();
    try {
      await bundleAll(dir);
      await using server = await startServer([requireTool("node"), `${dir}/server.mjs`]);
      const url = `${server.url}/`;
      await burst(url, 4000); // until the JIT has compiled the path
      const before = await cpuSeconds(server.pid);
      await burst(url, 8000);
      const perRequestUs = ((await cpuSeconds(server.pid)) - before) * 1e6 / 8000;
      assert(perRequestUs < 80, `the Node server used ${perRequestUs.toFixed(0)} µs of CPU per GET / (bound 80 µs)`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
