/**
 * A soak across processes with nothing lost: server processes (Deno and the Node bundle, mixed)
 * on one Redis Cluster (3 masters + 3 replicas), task trees submitted at a steady rate, a
 * subscriber on every tree's stream that drops its connection at random and resumes with
 * `Last-Event-ID` on another process, random cancels and answers to input; meanwhile one server
 * process is killed (SIGKILL) and started again, and one master fails over. Afterwards every task
 * must be final, every subscriber must have seen every event of its task exactly once and in
 * order, and no task may have finished twice. It reports each process's RSS slope after warm-up
 * and the masters' memory before, at the end and after retention.
 *
 * `deno run -A bench/soak.ts [--seconds 600] [--trees 1000] [--subscribers 500]`; the CI test
 * (`tests/soak_test.ts`) runs a short form and fails on any loss.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { type RedisCluster, startRedisCluster } from "../testing/redis_cluster.ts";
import { DENO_SERVER, type ServerProcess, startServer } from "../testing/server_process.ts";
import { type SseFrame, sseFrames } from "../testing/sse.ts";
import { bundleAll } from "../tools/bundle.ts";
import { rssKb } from "./stream_common.ts";
import { sleep } from "../lib/time/mod.ts";

export interface SoakOptions {
  readonly seconds: number;
  readonly trees: number;
  /** Streams open at a time at most (each tree gets one while it runs). */
  readonly subscribers: number;
  readonly log?: (line: string) => void;
}

export interface SoakReport {
  readonly trees: number;
  /** Problems found: lost or repeated events, tasks not final, tasks finished twice. Empty when none. */
  readonly losses: string[];
  readonly reconnects: number;
  /** MB per minute of each process's RSS over the second half of the run. */
  readonly rssSlopes: number[];
  /** MB the run's keys hold on the masters: before, at the end, after retention. */
  readonly redisMb: { before: number; end: number; afterRetention: number };
  /** Keys of the run left after retention, by family (`task`, `ev:session`, `idem`, …). */
  readonly keysLeft: Record<string, number>;
}

const RETENTION_SECONDS = 5;

/** Runs the soak; see the module doc. */
export async function soak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log ?? (() => {});
  await using cluster = await startRedisCluster();
  const dir = await Deno.makeTempDir({ prefix: "soak-" });
  await bundleAll(dir);
  const commands = [DENO_SERVER, ["node", `${dir}/server.mjs`], DENO_SERVER];
  const env = {
    STORE_URL: cluster.url,
    STORE_KEY_PREFIX: `soak-${crypto.randomUUID()}:`,
    STORE_TIMEOUT_MS: "2000",
    TASK_LEASE_SECONDS: "3",
    TASK_RETENTION_SECONDS: String(RETENTION_SECONDS),
    IDEMPOTENCY_TTL_SECONDS: String(RETENTION_SECONDS),
  };
  const servers: ServerProcess[] = await Promise.all(commands.map((command) => startServer(command, env)));
  const urls = () => servers.map((s) => s.url);
  const pick = () => urls()[Math.floor(Math.random() * servers.length)];
  const before = await storedMb(cluster, env.STORE_KEY_PREFIX);
  const rss: [number, number][][] = servers.map(() => []);
  const started = performance.now();
  const sampler = setInterval(() => {
    servers.forEach((s, i) => {
      try {
        rss[i].push([(performance.now() - started) / 60_000, rssKb(s.pid) / 1024]);
      } catch { /* restarting */ }
    });
  }, 1_000);
  const losses: string[] = [];
  let reconnects = 0;
  let open = 0;
  try {
    const chaos = (async () => {
      await sleep((options.seconds * 1000) / 3);
      log("killing server 1 and starting it again");
      await servers[1].kill();
      await sleep(2_000);
      servers[1] = await startServer(commands[1], env);
      await sleep((options.seconds * 1000) / 3 - 2_000);
      const moved = await cluster.failover("soak");
      log(`master failed over: ${moved.from} → ${moved.to}`);
    })();
    const followers: Promise<void>[] = [];
    const every = (options.seconds * 1000) / options.trees;
    // Little's law: trees that last this long keep about `subscribers` streams open at the rate they come.
    const delayMs = Math.min(60_000, Math.round((options.subscribers * every) / STEPS));
    for (let i = 0; i < options.trees; i++) {
      await sleep(every);
      while (open >= options.subscribers) await sleep(10);
      const task = await submit(pick(), i, delayMs);
      if (!task) continue;
      open++;
      followers.push(
        watch(pick, task, i, losses, () => reconnects++).finally(() => open--),
      );
    }
    await chaos;
    await Promise.all(followers);
    await checkFinal(pick, losses);
    const end = await storedMb(cluster, env.STORE_KEY_PREFIX);
    await sleep((RETENTION_SECONDS + 2) * 1000);
    await fetch(`${pick()}/tasks?limit=1`).then((r) => r.body?.cancel()); // a listing sweeps what retention removes
    const afterRetention = await storedMb(cluster, env.STORE_KEY_PREFIX);
    const keysLeft = await keyFamilies(cluster, env.STORE_KEY_PREFIX);
    return {
      keysLeft,
      trees: options.trees,
      losses,
      reconnects,
      rssSlopes: rss.map((points) => slope(points.slice(Math.floor(points.length / 2)))),
      redisMb: { before, end, afterRetention },
    };
  } finally {
    clearInterval(sampler);
    await Promise.all(servers.map((s) => s.stop().catch(() => {})));
    await Deno.remove(dir, { recursive: true });
  }
}

interface Tree {
  readonly id: string;
  readonly asks: boolean;
}

/** Updates of each task of a tree, `delay_ms` apart. */
const STEPS = 10;

/** A demo tree: 2 children, updates and tokens; one in 5 asks for input, one in 10 is cancelled. */
async function submit(url: string, i: number, delayMs: number): Promise<Tree | undefined> {
  const asks = i % 5 === 0;
  const input = { steps: STEPS, delay_ms: delayMs, tokens: ["a", "b", "c"], children: 2, ...(asks && { ask: "go?" }) };
  for (let attempt = 0; attempt < 20; attempt++) {
    const res = await fetch(`${url}/tasks`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": `soak-${i}` },
      body: JSON.stringify({ kind: "demo", input, session_id: `s${i % 20}` }),
    }).catch(() => undefined);
    if (res?.ok) return { id: (await res.json()).task_id, asks };
    await res?.body?.cancel();
    await sleep(200); // a process restarting, a master failing over: the same key again is safe
  }
  return undefined;
}

/**
 * Follows a tree's stream to its end, dropping the connection at random and resuming with
 * Last-Event-ID on another process; answers its input, cancels one in ten. Then compares what it
 * saw with the task's whole stream read once more.
 */
async function watch(
  pick: () => string,
  tree: Tree,
  i: number,
  losses: string[],
  reconnected: () => void,
): Promise<void> {
  const seen: SseFrame[] = [];
  let done = false;
  for (let attempt = 0; !done && attempt < 200; attempt++) {
    const controller = new AbortController();
    const last = seen.at(-1)?.id;
    const res = await fetch(`${pick()}/tasks/${tree.id}/stream`, {
      headers: last ? { "last-event-id": last } : {},
      signal: controller.signal,
    }).catch(() => undefined);
    if (res?.status === 204) break;
    if (!res?.ok || !res.body) {
      await res?.body?.cancel();
      await sleep(200);
      continue;
    }
    if (attempt > 0) reconnected();
    const dropAfter = Math.random() < 0.5 ? 1 + Math.floor(Math.random() * 10) : Infinity;
    let taken = 0;
    try {
      for await (const frame of sseFrames(res.body)) {
        if (frame.event === undefined) continue;
        seen.push(frame);
        if (frame.event === "input_required" && frame.data?.task_id === tree.id) void post(pick(), tree.id, "input");
        if (frame.event === "update" && i % 10 === 3 && seen.length === 3) void post(pick(), tree.id, "cancel");
        if (["done", "failed", "cancelled"].includes(frame.event) && frame.data?.task_id === tree.id) done = true;
        if (done || ++taken >= dropAfter) break;
      }
    } catch { /* the process died or the connection dropped: resume */ }
    controller.abort();
  }
  const ids = seen.map((f) => Number(f.id));
  const whole = await replay(pick, tree.id);
  const wholeIds = whole.map((f) => Number(f.id));
  if (!done) losses.push(`${tree.id}: the stream never reached the task's final event (saw ${ids.length})`);
  else if (ids.join() !== wholeIds.join()) {
    losses.push(`${tree.id}: saw ids ${ids.join(",")}, the stream holds ${wholeIds.join(",")}`);
  }
  const finals = whole.filter((f) => ["done", "failed", "cancelled"].includes(f.event!) && f.data?.task_id === tree.id);
  if (finals.length > 1) losses.push(`${tree.id}: finished ${finals.length} times (${finals.map((f) => f.event)})`);
}

async function post(url: string, id: string, what: "input" | "cancel") {
  const body = what === "input" ? { input: "yes" } : {};
  const res = await fetch(`${url}/tasks/${id}/${what}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  }).catch(() => undefined);
  await res?.body?.cancel();
}

/** The task's whole stream, from its first event (the task has ended, so the stream ends). */
async function replay(pick: () => string, id: string): Promise<SseFrame[]> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const res = await fetch(`${pick()}/tasks/${id}/stream`).catch(() => undefined);
    if (res?.ok && res.body) {
      const frames: SseFrame[] = [];
      for await (const frame of sseFrames(res.body)) if (frame.event !== undefined) frames.push(frame);
      return frames;
    }
    await res?.body?.cancel();
    await sleep(200);
  }
  return [];
}

/** Every task final: none in progress or waiting for input. */
async function checkFinal(pick: () => string, losses: string[]) {
  for (const status of ["in_progress", "input_required"]) {
    const page = await (await fetch(`${pick()}/tasks?status=${status}&limit=5`)).json();
    if (page.total > 0) {
      losses.push(`${page.total} tasks still ${status}: ${page.tasks.map((t: { task_id: string }) => t.task_id)}`);
    }
  }
}

/** MB held by the keys under `prefix` on the masters (`redis-cli --memkeys`: MEMORY USAGE of each). */
async function storedMb(cluster: RedisCluster, prefix: string): Promise<number> {
  const masters = (await cluster.nodes()).filter((node) => node.flags.includes("master"));
  const bytes = await Promise.all(masters.map(async (node) => {
    const report = await cluster.cli(node.port, "--memkeys", "--pattern", `${prefix}*`);
    return [...report.matchAll(/^\d+ \w+ with (\d+) bytes/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
  }));
  return bytes.reduce((a, b) => a + b, 0) / 1024 / 1024;
}

/** The keys under `prefix` on the masters, counted by family: what follows the hash tag, up to its first id. */
async function keyFamilies(cluster: RedisCluster, prefix: string): Promise<Record<string, number>> {
  const masters = (await cluster.nodes()).filter((node) => node.flags.includes("master"));
  const families: Record<string, number> = {};
  for (const node of masters) {
    const keys = (await cluster.cli(node.port, "--scan", "--pattern", `${prefix}*`)).trim().split("\n").filter(Boolean);
    for (const key of keys) {
      const family = key.slice(key.indexOf("}:") + 2).replace(/:[^:]*[0-9a-f]{8}-[^:]*.*$|:s\d+.*$|:\d+.*$/, "");
      families[family] = (families[family] ?? 0) + 1;
    }
  }
  return families;
}

/** Least-squares slope of `[x, y]` points. */
function slope(points: [number, number][]): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const num = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  const den = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      seconds: { type: "string", default: "600" },
      trees: { type: "string", default: "1000" },
      subscribers: { type: "string", default: "500" },
    },
  });
  const report = await soak({
    seconds: Number(values.seconds),
    trees: Number(values.trees),
    subscribers: Number(values.subscribers),
    log: (line) => console.log(line),
  });
  console.log(
    `${report.trees} trees, ${report.reconnects} reconnects with Last-Event-ID; losses: ${report.losses.length}; ` +
      `RSS slope after warm-up (MB/min): ${report.rssSlopes.map((s) => s.toFixed(1)).join(" / ")}; ` +
      `the run's keys on Redis ${report.redisMb.before.toFixed(2)} MB before → ${report.redisMb.end.toFixed(2)} MB ` +
      `at the end → ${report.redisMb.afterRetention.toFixed(2)} MB after retention; keys left: ` +
      JSON.stringify(report.keysLeft),
  );
  for (const loss of report.losses.slice(0, 20)) console.log(`  ${loss}`);
  if (report.losses.length > 0) Deno.exit(1);
}
