/**
 * Scenarios against a real server process, written once and run on Deno and on the Node bundle:
 * `denoServerTests(SCENARIOS)` in a `*_e2e_test.ts`, `nodeBundleTest(name, SCENARIOS)` in a
 * `*_node_test.ts`. Also `curl()`, the client most of them speak through.
 *
 * @module
 */
import { bundleAll } from "../tools/bundle.ts";
import { assertEquals } from "./assert.ts";
import { DENO_SERVER } from "./server_process.ts";
import { missingTools, requireTool } from "./tools.ts";

/** One scenario: the system tools it needs, and its body given the server's command line. */
export interface ProcessScenario {
  readonly name: string;
  readonly tools: readonly string[];
  run(command: string[]): Promise<void>;
}

/** A Deno test for each scenario, against the Deno server. */
export function denoServerTests(scenarios: readonly ProcessScenario[]): void {
  for (const scenario of scenarios) {
    Deno.test(
      `Deno server: ${scenario.name}`,
      { ignore: missingTools(...scenario.tools) },
      () => scenario.run(DENO_SERVER),
    );
  }
}

/** One Deno test that builds the Node bundle and runs each scenario against its `server.mjs`, a step each. */
export function nodeBundleTest(name: string, scenarios: readonly ProcessScenario[]): void {
  Deno.test(`Node bundle: ${name}`, {
    ignore: missingTools("node", ...new Set(scenarios.flatMap((s) => s.tools))),
  }, async (t) => {
    const dir = await Deno.makeTempDir();
    try {
      await bundleAll(dir);
      for (const scenario of scenarios) await t.step(scenario.name, () => scenario.run([`${dir}/server.mjs`]));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

/** `curl` with `args`: the status, the Content-Type and the body it printed (parsed as JSON). */
export async function curl(args: string[]) {
  const { code, stdout } = await new Deno.Command(requireTool("curl"), {
    args: ["-sS", "--max-time", "30", "-w", "\n%{http_code} %{content_type}", ...args],
    stdout: "piped",
  }).output();
  assertEquals(code, 0, `curl ${args.join(" ")}`);
  const text = new TextDecoder().decode(stdout);
  const cut = text.lastIndexOf("\n");
  const [status, type = ""] = text.slice(cut + 1).split(" ");
  const body = text.slice(0, cut);
  return { status: Number(status), type, body: body ? JSON.parse(body) : undefined };
}
