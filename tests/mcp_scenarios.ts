/**
 * The service's `/mcp`, driven by the official MCP client against server processes: on Deno
 * (`task_e2e_test.ts`) and on the Node bundle (`task_node_test.ts`) alike.
 *
 * @module
 */
import { assert, assertEquals } from "../testing/assert.ts";
import { testTokens } from "../testing/auth_tokens.ts";
import { mcpClient, startTask, structuredOf, textOf, toolsOf } from "../testing/mcp_client.ts";
import { startRedis } from "../testing/redis_server.ts";
import { startServer } from "../testing/server_process.ts";
import { until } from "../testing/until.ts";
import type { TaskScenario } from "./task_scenarios.ts";

export const MCP_SCENARIOS: readonly TaskScenario[] = [
  {
    name:
      "MCP on two processes on Redis, with tokens: a task submitted on one asks, is answered on the other, completes; " +
      "cancel; another tenant sees nothing",
    tools: ["redis-server"],
    async run(command) {
      const tokens = testTokens();
      const file = await Deno.makeTempFile({ suffix: ".json" });
      await Deno.writeTextFile(file, tokens.file);
      await using redis = await startRedis();
      try {
        const env = {
          STORE_URL: redis.url,
          STORE_KEY_PREFIX: `mcp-${crypto.randomUUID()}:`,
          SERVICE_TOKENS_FILE: file,
        };
        await using a = await startServer(command, env);
        await using b = await startServer(command, env);
        await using onA = await mcpClient(a.url, tokens.admin);
        await using onB = await mcpClient(b.url, tokens.admin);
        const demo = (await toolsOf(onA.client)).find((t) => t.name === "submit_demo")!;
        assertEquals(demo.execution?.taskSupport, "optional");

        const { taskId } = await startTask(onA.client, "submit_demo", { input: { steps: 1, ask: "Which colour?" } });
        let seen = { status: "", statusMessage: "" };
        await until(() => `input_required on the other process (last: ${JSON.stringify(seen)})`, async () => {
          seen = await onB.client.experimental.tasks.getTask(taskId) as typeof seen;
          return seen.status === "input_required";
        });
        assertEquals(seen.statusMessage, "Which colour?");
        const answered = await onB.client.callTool({
          name: "answer_task",
          arguments: { task_id: taskId, answer: "red" },
        });
        assertEquals((structuredOf(answered).result as { input: string }).input, "red", textOf(answered));
        assertEquals((await onA.client.experimental.tasks.getTask(taskId)).status, "completed");
        const rest = await (await fetch(`${a.url}/tasks/${taskId}`, {
          headers: { authorization: `Bearer ${tokens.admin}` },
        })).json();
        assertEquals(rest.status, "done", "the MCP task is the service's task");

        const long = await startTask(onB.client, "submit_demo", { input: { steps: 100, delay_ms: 1_000 } });
        assertEquals((await onA.client.experimental.tasks.cancelTask(long.taskId)).status, "cancelled");

        await using stranger = await mcpClient(b.url, tokens.stranger);
        assertEquals((await stranger.client.experimental.tasks.listTasks()).tasks, []);
        const hidden = await stranger.client.callTool({ name: "get_task", arguments: { task_id: taskId } });
        assert(hidden.isError === true, textOf(hidden));
      } finally {
        await Deno.remove(file);
      }
    },
  },
];
