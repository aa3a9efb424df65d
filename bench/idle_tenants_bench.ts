/**
 * What an idle server with many tenants asks of its store: a Deno server with a tokens file of
 * `--tenants` tenants (one task runner and one search index each, and the base's) on its own
 * `redis-server`, nothing submitted; Redis's command statistics over 10 s after a 12 s settle
 * (past the runners' and indexes' backoff to one look every 8 s).
 *
 * Run: `deno run -A bench/idle_tenants_bench.ts [--tenants 20]` (needs redis-server).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { startRedis } from "../testing/redis_server.ts";
import { DENO_SERVER, startServer } from "../testing/server_process.ts";
import { sha256Hex } from "../server/auth/tokens.ts";

const { values } = parseArgs({ args: Deno.args, options: { tenants: { type: "string", default: "20" } } });
const count = Number(values.tenants);
const file = await Deno.makeTempFile({ suffix: ".json" });
try {
  const entries = Array.from({ length: count }, (_, i) => ({
    name: `t${i}`,
    tenant: `tenant${i}`,
    scopes: ["admin"],
    sha256: sha256Hex(crypto.randomUUID()),
  }));
  await Deno.writeTextFile(file, JSON.stringify(entries));
  await using redis = await startRedis();
  const cli = async (...args: string[]) =>
    new TextDecoder().decode(
      (await new Deno.Command("redis-cli", { args: ["-p", String(redis.port), ...args] }).output()).stdout,
    );
  await using _server = await startServer(DENO_SERVER, { STORE_URL: redis.url, SERVICE_TOKENS_FILE: file });
  await new Promise((resolve) => setTimeout(resolve, 12_000));
  await cli("config", "resetstat");
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const stats = (await cli("info", "commandstats")).split("\n").filter((line) => line.startsWith("cmdstat"));
  const sum = (field: string) => stats.reduce((n, line) => n + Number(new RegExp(`${field}=(\\d+)`).exec(line)![1]), 0);
  console.log(
    `${count} tenants (+ the base), idle: ${(sum("calls") / 10).toFixed(0)} commands/s, ` +
      `${(sum("usec") / 10 / 1000).toFixed(1)} ms of Redis time per second`,
  );
} finally {
  await Deno.remove(file);
}
