import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { sseEvents } from "../../testing/sse.ts";
import {
  createMemoryStore,
  type EventLog,
  type Store,
  StoreUnavailableError,
  type TaskStore,
} from "../../lib/store/mod.ts";
import { testApp } from "../../testing/service.ts";

const DOWN = "Redis at 127.0.0.1:6390 is not reachable (connection refused); retrying";

/** A memory store whose task and event reads fail while `down`, as Redis' do when it is unreachable. */
function switchable(): Store & { down: boolean } {
  const memory = createMemoryStore();
  const fail = () => Promise.reject(new StoreUnavailableError(DOWN));
  const store: Store & { down: boolean } = {
    ...memory,
    down: false,
    tasks: { ...memory.tasks, get: (id) => store.down ? fail() : memory.tasks.get(id) } satisfies TaskStore,
    events: {
      ...memory.events,
      last: (channel) => store.down ? fail() : memory.events.last(channel),
      range: (channel, after, limit) => store.down ? fail() : memory.events.range(channel, after, limit),
      followBatches: (channel, after, signal) =>
        store.down
          ? { [Symbol.asyncIterator]: () => ({ next: fail }) }
          : memory.events.followBatches(channel, after, signal),
    } satisfies EventLog,
  };
  return store;
}

Deno.test("streams: every stream route answers 503 with Retry-After while the store is down, before streaming", async () => {
  const store = switchable();
  await using served = testApp({ store, env: { CHANNEL_SCOPES: "TASK,SESSION,GLOBAL" } });
  const { app } = served;
  const tasks = served.service.scope().runner;
  {
    const { task_id } = await tasks.submit({ kind: "demo", input: { steps: 0 }, session_id: "s1" });
    await sseEvents((await app.request(`/tasks/${task_id}/stream`)).body!);
    store.down = true;
    for (
      const [path, headers] of [
        [`/tasks/${task_id}/stream`, {}],
        [`/tasks/${task_id}/stream?replay=false`, {}],
        [`/tasks/${task_id}/stream`, { "last-event-id": "1" }],
        ["/sessions/s1/stream", {}],
        ["/sessions/s1/stream?replay=false", {}],
        ["/stream", {}],
        ["/stream", { "last-event-id": "3" }],
      ] as const
    ) {
      const res = await app.request(path, { headers });
      const body = await res.text();
      assertEquals(
        [res.status, res.headers.get("content-type"), res.headers.get("retry-after")],
        [503, "application/problem+json", "1"],
        `${path} ${JSON.stringify(headers)}: ${body}`,
      );
      const problem = JSON.parse(body);
      assertEquals([problem.status, problem.instance], [503, path.split("?")[0]]);
      assertMatch(problem.detail, /did not answer: Redis at 127\.0\.0\.1:6390 is not reachable/);
      assert(typeof problem.traceId === "string");
    }
    store.down = false;
    const back = await app.request("/sessions/s1/stream");
    assertEquals(back.status, 200);
    await back.body!.cancel();
  }
});
