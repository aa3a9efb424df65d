/**
 * The service under real clients: curl's default form type (refused: JSON must say so), methods
 * a runtime refuses to build a `Request` for, empty JSON bodies, JSON nested too deep, over-long
 * ids and idempotent creation across two processes. Run on Deno (`service_edge_e2e_test.ts`) and on the Node bundle
 * (`service_edge_node_test.ts`) alike.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { startRedis } from "../testing/redis_server.ts";
import { type ServerProcess, startServer } from "../testing/server_process.ts";
import { requireTool } from "../testing/tools.ts";
import { curl, type ProcessScenario } from "../testing/process_scenarios.ts";
import { until } from "../testing/until.ts";

/** The task once `ok(task)` holds. */
async function taskWhen(server: ServerProcess, id: string, ok: (task: Record<string, unknown>) => boolean) {
  let task: Record<string, unknown> = {};
  const read = async () => ok(task = await (await fetch(`${server.url}/tasks/${id}`)).json());
  await until(() => `task ${id} never got there: ${JSON.stringify(task)}`, read, 15_000);
  return task;
}

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const demo = JSON.stringify({ kind: "demo", input: { steps: 0, tokens: ["ok"] } });

export const EDGE_SCENARIOS: readonly ProcessScenario[] = [
  {
    name: "JSON must say it is JSON: curl's form type, text/plain or no type get 415 naming the fix, as multipart does",
    tools: ["curl"],
    async run(command) {
      await using server = await startServer(command, { STORE_URL: "memory:" });
      const json = await curl(["-H", "content-type: application/json", "-d", demo, `${server.url}/tasks`]);
      assertEquals([json.status, json.body.kind], [201, "demo"]);
      // `curl -d` sends application/x-www-form-urlencoded; these are what another site's page can send unasked.
      for (const header of [[], ["-H", "content-type: text/plain"], ["-H", "content-type:"]]) {
        const refused = await curl([...header, "-d", demo, `${server.url}/tasks`]);
        assertEquals([refused.status, refused.type], [415, "application/problem+json"], header.join(" "));
        assertMatch(
          refused.body.detail,
          /send JSON with Content-Type: application\/json \(curl: -H 'content-type: application\/json'\)/,
        );
      }
      for (const path of ["/tasks", `/tasks/${json.body.task_id}/cancel`, "/pipelines/run"]) {
        const multipart = await curl(["-F", "kind=demo", `${server.url}${path}`]);
        assertEquals([multipart.status, multipart.type], [415, "application/problem+json"], path);
        assertMatch(multipart.body.detail, /multipart\/form-data.*application\/json/);
      }
      assertEquals((await curl([`${server.url}/tasks`])).body.total, 1);
    },
  },
  {
    name: "TRACE answers 405 with Allow like any other method a path lacks; TRACK too (Node's parser: 400)",
    tools: ["curl"],
    async run(command) {
      await using server = await startServer(command, { STORE_URL: "memory:" });
      const node = command[0] !== Deno.execPath();
      for (const method of ["TRACE", "TRACK", "PUT"]) {
        const res = await curl(["-X", method, `${server.url}/tasks`]);
        if (method === "TRACK" && node) {
          assertEquals(res.status, 400, "Node's HTTP parser refuses methods it does not know, as it does FOO");
          continue;
        }
        assertEquals([res.status, res.type, res.body?.title], [405, "application/problem+json", "Method Not Allowed"]);
        assertEquals(res.body.detail, `${method} is not allowed on /tasks; use GET, HEAD or POST`);
      }
      const head = await new Deno.Command(requireTool("curl"), {
        args: ["-sS", "-o", "/dev/null", "-D", "-", "-X", "TRACE", `${server.url}/health`],
        stdout: "piped",
      }).output();
      assertMatch(new TextDecoder().decode(head.stdout), /^allow: GET, HEAD\r$/mi);
    },
  },
  {
    name: "cancel with Content-Type: application/json and an empty body applies the defaults",
    tools: ["curl"],
    async run(command) {
      await using server = await startServer(command, { STORE_URL: "memory:" });
      const created = await curl([
        "-H",
        "content-type: application/json",
        "-d",
        JSON.stringify({
          kind: "demo",
          input: { steps: 100, delay_ms: 50, children: 1 },
        }),
        `${server.url}/tasks`,
      ]);
      await taskWhen(server, created.body.task_id, (t) => (t.updates as unknown[]).length > 0);
      const cancelled = await curl([
        "-X",
        "POST",
        "-H",
        "content-type: application/json",
        `${server.url}/tasks/${created.body.task_id}/cancel`,
      ]);
      assertEquals([cancelled.status, cancelled.body], [200, { cancelled_count: 2 }]);
    },
  },
  {
    name: "an answer nested too deep is a 422 that changes nothing; a valid answer then resumes the task",
    tools: [],
    async run(command) {
      await using server = await startServer(command, { STORE_URL: "memory:" });
      const res = await fetch(`${server.url}/tasks`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ kind: "demo", input: { steps: 0, ask: "Name?" } }),
      });
      const { task_id } = await res.json();
      await taskWhen(server, task_id, (t) => t.status === "input_required");
      const deep = await fetch(`${server.url}/tasks/${task_id}/input`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: `{"input":${nested(6_000)}}`,
      });
      const problem = await deep.json();
      assertEquals([deep.status, problem.errors], [422, [{
        field: "(body)",
        message: "JSON nested deeper than 100 levels; flatten the data",
      }]]);
      assertEquals((await (await fetch(`${server.url}/tasks/${task_id}`)).json()).status, "input_required");
      const answered = await fetch(`${server.url}/tasks/${task_id}/input`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input: "Ada" }),
      });
      assertEquals(answered.status, 200);
      await answered.body?.cancel();
      const done = await taskWhen(server, task_id, (t) => t.status === "done");
      assertEquals((done.result as Record<string, unknown>).input, "Ada");
    },
  },
  {
    name: "an over-long task id is a 422 on the stream route as on the others",
    tools: [],
    async run(command) {
      await using server = await startServer(command, { STORE_URL: "memory:" });
      const id = "a".repeat(201);
      for (const path of [`/tasks/${id}`, `/tasks/${id}/stream`]) {
        const res = await fetch(`${server.url}${path}`);
        assertEquals([res.status, (await res.json()).errors?.[0]?.field], [422, "task_id"], path);
      }
    },
  },
  {
    name: "Idempotency-Key across two server processes on one Redis: the same request once, another 409",
    tools: ["redis-server"],
    async run(command) {
      await using redis = await startRedis();
      const env = { STORE_URL: redis.url, STORE_KEY_PREFIX: `edge-${crypto.randomUUID()}:` };
      await using a = await startServer(command, env);
      await using b = await startServer(command, env);
      const post = (server: ServerProcess, path: string, body: unknown, key: string) =>
        fetch(`${server.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": key },
          body: JSON.stringify(body),
        });
      const body = { kind: "demo", input: { steps: 0 } };
      const first = await post(a, "/tasks", body, "order-1");
      const created = await first.json();
      assertEquals(first.status, 201);
      const again = await post(b, "/tasks", body, "order-1");
      const replayed = await again.json();
      assertEquals([again.status, replayed.task_id, again.headers.get("location")], [
        200,
        created.task_id,
        `/tasks/${created.task_id}`,
      ]);
      assertEquals(again.headers.get("idempotent-replayed"), "true");
      const other = await post(b, "/tasks", { ...body, input: { steps: 1 } }, "order-1");
      const conflict = await other.json();
      assertEquals([other.status, conflict.title], [409, "Conflict"]);
      assertMatch(conflict.detail, /Idempotency-Key 'order-1' was used for a different request/);
      const list = await (await fetch(`${a.url}/tasks`)).json();
      assertEquals(list.total, 1);

      const run = { documents: [{ title: "T", content: "Some text.", source: "t.md" }] };
      const p1 = await post(a, "/pipelines/run", run, "run-1");
      const p2 = await post(b, "/pipelines/run", run, "run-1");
      const [t1, t2] = [await p1.json(), await p2.json()];
      assertEquals([p1.status, p2.status, t2.task_id], [201, 200, t1.task_id]);
      const bad = await post(b, "/tasks", body, "spaces are not allowed");
      assertEquals([bad.status, (await bad.json()).errors[0].field], [422, "idempotency-key"]);
      assert((await (await fetch(`${b.url}/tasks`)).json()).total === 2);
    },
  },
];
