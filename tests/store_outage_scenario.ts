/**
 * A server process on a redis-server that stalls (SIGSTOP) and then dies, for the Deno server
 * and the Node bundle alike: 503 within `STORE_TIMEOUT_MS`, 200 again once Redis answers, and
 * two log lines per outage, however many requests failed.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { startRedis } from "../testing/redis_server.ts";
import { startServer } from "../testing/server_process.ts";
import { sleep } from "../lib/time/mod.ts";

const PATH = "/api/RateLimited/sliding";

export async function storeOutageScenario(command: string[]): Promise<void> {
  await using redis = await startRedis();
  await using server = await startServer(command, { STORE_URL: redis.url, STORE_TIMEOUT_MS: "300" }, {
    captureStderr: true,
  });
  const request = async (path: string, who = "alice") => {
    const started = performance.now();
    const res = await fetch(`${server.url}${path}`, {
      headers: { authorization: `Basic ${btoa(`${who}:x`)}` },
      signal: AbortSignal.timeout(5_000),
    });
    await res.body?.cancel();
    return { status: res.status, ms: performance.now() - started };
  };
  const recovered = async () => {
    for (let i = 0; i < 50; i++) {
      if ((await request(PATH, `r${i}`)).status === 200) return true;
      await sleep(100);
    }
    return false;
  };
  try {
    assertEquals((await request(PATH)).status, 200);
    redis.pause();
    const stalled = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => request(PATH, `s${i}`)),
      request("/health"),
    ]);
    assertEquals(stalled.map((r) => r.status), Array(21).fill(503));
    const slowest = Math.max(...stalled.map((r) => r.ms));
    assert(slowest < 1_500, `the slowest 503 took ${slowest} ms with STORE_TIMEOUT_MS=300`);
    redis.resume();
    assert(await recovered(), "200 again after SIGCONT");
    assertEquals((await request("/health")).status, 200);

    await redis.stop();
    const down = await Promise.all(Array.from({ length: 30 }, (_, i) => request(PATH, `d${i}`)));
    assertEquals(down.map((r) => r.status), Array(30).fill(503));
    await redis.start();
    assert(await recovered(), "200 again after a restart");
  } finally {
    redis.resume();
  }
  assertEquals(await server.stop(), 0);
  const lines = (await server.stderr()).split("\n").filter(Boolean);
  const where = `Redis at 127\\.0\\.0\\.1:${redis.port}`;
  assertEquals(lines.length, 4, lines.join("\n"));
  // The first failure of an outage may be a request's, a task runner's or the webhook dispatcher's (they poll).
  const first = String
    .raw`^store unreachable (traceId=\w+ path=\S+|task queue|task control channel|webhooks fan-out|webhooks take): ${where}`;
  assertMatch(lines[0], new RegExp(`${first} did not answer within 300 ms; reconnecting$`));
  assert(failedCalls(lines[1]) >= 21, lines[1]);
  assertMatch(lines[2], new RegExp(`${first} is not reachable \\(.+\\); retrying$`));
  assert(failedCalls(lines[3]) >= 30, lines[3]);
}

/** The count of a recovery line: "store answers again after 0.4 s; 23 calls failed meanwhile". */
function failedCalls(line: string): number {
  assertMatch(line, /^store answers again after \d+\.\d s; \d+ calls failed meanwhile$/);
  return Number(line.match(/; (\d+) calls/)![1]);
}
