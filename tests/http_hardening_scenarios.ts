/**
 * The service's HTTP hardening under real clients, on a real server process: asset names that
 * are `Object.prototype` members. Run on Deno (`http_hardening_e2e_test.ts`) and on the Node
 * bundle (`http_hardening_node_test.ts`) alike.
 *
 * @module
 */
import { assert, assertEquals } from "./assert.ts";
import { startServer } from "./server_process.ts";

/** One scenario: the system tools it needs, and its body given the server's command line. */
export interface HardeningScenario {
  readonly name: string;
  readonly tools: readonly string[];
  run(command: string[]): Promise<void>;
}

/** The paths of asset names that only `Object.prototype` holds. */
async function prototypeAssetPaths(url: string): Promise<string[]> {
  const docs = await (await fetch(`${url}/docs`)).text();
  const dir = docs.match(/\/docs\/(swagger-ui-dist@[^/]+)\//)![1];
  return ["constructor", "toString", "hasOwnProperty", "__proto__"]
    .flatMap((name) => [`/console/assets/${name}`, `/docs/${dir}/${name}`]);
}

export const HARDENING_SCENARIOS: readonly HardeningScenario[] = [
  {
    name: "asset names that are Object.prototype members are 404, with nothing in the log",
    tools: [],
    async run(command) {
      const server = await startServer(command, {}, { captureStderr: true });
      try {
        for (const path of await prototypeAssetPaths(server.url)) {
          const res = await fetch(`${server.url}${path}`);
          await res.body?.cancel();
          assertEquals(res.status, 404, path);
        }
      } finally {
        assertEquals(await server.stop(), 0);
      }
      const log = await server.stderr();
      assert(!/error|TypeError/.test(log), log);
    },
  },
];
