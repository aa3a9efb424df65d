import { assert, assertEquals } from "../testing/assert.ts";
import { openStore } from "../lib/store/mod.ts";
import { startRedis } from "../testing/redis_server.ts";
import { missingTools } from "../testing/tools.ts";

/** Calls of each command redis-server ran since its start (`INFO commandstats`), those inside scripts included. */
async function commandCalls(port: number): Promise<Map<string, number>> {
  const out = await new Deno.Command("redis-cli", { args: ["-p", String(port), "INFO", "commandstats"] }).output();
  const calls = new Map<string, number>();
  for (const [, name, n] of new TextDecoder().decode(out.stdout).matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) {
    calls.set(name, Number(n));
  }
  return calls;
}

Deno.test(
  "sliding window on Redis: ~4 redis.calls per decision at 10 allowed then 10 refused; no trim while nothing left the window; refusals write nothing",
  {
    ignore: missingTools("redis-server"),
  },
  async () => {
    await using redis = await startRedis();
    const store = await openStore({ url: redis.url, prefix: "calls:" });
    try {
      const decide = async (n: number) => {
        const before = await commandCalls(redis.port);
        const allowed: boolean[] = [];
        for (let i = 0; i < n; i++) allowed.push((await store.hitSlidingWindow("k", 10, 30_000)).allowed);
        const after = await commandCalls(redis.port);
        const used = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
        return { allowed, used };
      };
      const admitted = await decide(10);
      assertEquals(admitted.allowed, Array(10).fill(true));
      const refused = await decide(10);
      assertEquals(refused.allowed, Array(10).fill(false));
      assertEquals(refused.used("zadd") + refused.used("pexpire"), 0, "a refusal writes nothing");
      assertEquals(admitted.used("zremrangebyscore") + refused.used("zremrangebyscore"), 0, "nothing left the window");
      const inside = ["time", "zrange", "zremrangebyscore", "zcard", "zadd", "pexpire"];
      const calls = inside.reduce((n, name) => n + admitted.used(name) + refused.used(name), 0);
      assert(calls <= 80, `${calls} redis.calls for 20 decisions`);
    } finally {
      await store.close();
    }
  },
);
