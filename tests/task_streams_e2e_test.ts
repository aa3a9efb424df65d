import { EventSource } from "eventsource";
import { assert, assertEquals } from "./assert.ts";
import { startRedis } from "./redis_server.ts";
import { DENO_SERVER, type ServerProcess, startServer } from "./server_process.ts";
import { sseEvents } from "./sse.ts";
import { startTcpProxy } from "./tcp_proxy.ts";
import { missingTools, requireTool } from "./tools.ts";

async function submit(server: ServerProcess, input: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${server.url}/tasks`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kind: "demo", input }),
  });
  assertEquals(res.status, 201);
  return (await res.json()).task_id;
}

/** `curl -N` on a stream until the server ends it: the frames it printed. */
async function curlStream(url: string, headers: string[] = []) {
  const { code, stdout } = await new Deno.Command(requireTool("curl"), {
    args: ["-sSN", "--max-time", "30", ...headers.flatMap((h) => ["-H", h]), url],
    stdout: "piped",
  }).output();
  assertEquals(code, 0, "curl exits 0 when the server ends the stream");
  return await sseEvents(new Response(stdout).body!);
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

Deno.test("curl -N reads a task stream live until done; Last-Event-ID resumes it", {
  ignore: missingTools("curl"),
}, async () => {
  await using server = await startServer(DENO_SERVER, { STORE_URL: "memory:" });
  const id = await submit(server, { steps: 3, delay_ms: 50, tokens: ["Hel", "lo"], children: 1 });
  const frames = await curlStream(`${server.url}/tasks/${id}/stream`);
  assertEquals(frames.map((f) => f.id), range(1, frames.length));
  assertEquals(frames.at(-1)?.event, "done");
  assertEquals(frames.at(-1)?.data, { task_id: id, result: { answer: "Hello" } });
  assert(frames.some((f) => f.event === "subtask_done"));
  const resumed = await curlStream(`${server.url}/tasks/${id}/stream`, ["Last-Event-ID: 4"]);
  assertEquals(resumed.map((f) => f.id), range(5, frames.length));
});

Deno.test("the eventsource package reconnects with Last-Event-ID after the connection drops, missing nothing", async () => {
  await using server = await startServer(DENO_SERVER, { STORE_URL: "memory:" });
  await using proxy = startTcpProxy(Number(new URL(server.url).port));
  const id = await submit(server, { steps: 30, delay_ms: 40, tokens: ["a", "b"] });
  const source = new EventSource(`http://127.0.0.1:${proxy.port}/tasks/${id}/stream`);
  const seen: string[] = [];
  let opened = 0;
  const finished = new Promise<void>((resolve, reject) => {
    source.onopen = () => opened++;
    const on = (event: MessageEvent) => {
      seen.push(event.lastEventId);
      if (seen.length === 5) proxy.dropAll(); // the "load balancer" cuts the stream
      if (event.type === "done") resolve();
    };
    for (const kind of ["update", "token", "done"]) source.addEventListener(kind, on);
    setTimeout(() => reject(new Error(`no done after 20 s; saw ${seen.join(",")}`)), 20_000);
  });
  try {
    await finished;
  } finally {
    source.close();
  }
  assert(opened >= 2, `reconnected (opened ${opened} times)`);
  assertEquals(seen, range(1, 33), "every event exactly once across the reconnect");
});

Deno.test("two server processes on one Redis: created in one, streamed and cancelled through the other", {
  ignore: missingTools("redis-server", "curl"),
}, async () => {
  await using redis = await startRedis();
  const env = { STORE_URL: redis.url, STORE_KEY_PREFIX: `e2e-${crypto.randomUUID()}:` };
  await using a = await startServer(DENO_SERVER, env);
  await using b = await startServer(DENO_SERVER, env);
  const id = await submit(a, { steps: 500, delay_ms: 20, children: 2 });
  const stream = await fetch(`${b.url}/tasks/${id}/stream?events=update,cancelled`);
  const frames = sseEvents(stream.body!);
  await new Promise((r) => setTimeout(r, 300));
  const cancel = await fetch(`${b.url}/tasks/${id}/cancel`, { method: "POST" });
  assertEquals(await cancel.json(), { cancelled_count: 3 });
  const got = await frames;
  assertEquals(got.at(-1)?.event, "cancelled", "B's stream ends with the cancel");
  assert(got.filter((f) => f.event === "update").length > 3, "B streamed A's updates");
  const before = (await (await fetch(`${a.url}/tasks/${id}`)).json()).updates.length;
  await new Promise((r) => setTimeout(r, 200));
  const task = await (await fetch(`${a.url}/tasks/${id}`)).json();
  assertEquals([task.status, task.updates.length], ["cancelled", before], "A stopped running it");
  const children = await (await fetch(`${b.url}/tasks/${id}/children`)).json();
  assertEquals(children.children.map((c: { status: string }) => c.status), ["cancelled", "cancelled"]);
  const replayed = await curlStream(`${a.url}/tasks/${id}/stream?events=cancelled`);
  assertEquals(replayed.map((f) => f.event), ["cancelled"]);
});
