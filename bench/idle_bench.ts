/**
 * `GET /health` while 10,000 idle connections are held open against the service, compared
 * with the same request without them, interleaved in one run (without, with, without, with…),
 * on Deno and on the Node bundle; and the server's RSS per idle connection.
 *
 * The server and the connection holder (`bench/idle_holder.ts`, its own process) run with the
 * open-file limit raised to the hard limit in their own shells (`ulimit -n`), the server with
 * `MAX_CONNECTIONS` above the count and idle timeouts long enough to keep the connections.
 * Each measurement is two wrk runs: one connection (latency of lone requests) and 32
 * connections (throughput, p99 under load). `IDLE_CONNECTIONS`, `ROUNDS`, `BENCH_SECONDS` change
 * the defaults (10000, 5, 3).
 *
 * Run: `deno run -A bench/idle_bench.ts` (needs wrk and node).
 *
 * @module
 */
import { bundleAll } from "../tools/bundle.ts";

const root = new URL("..", import.meta.url).pathname;
const IDLE = Number(Deno.env.get("IDLE_CONNECTIONS") ?? 10_000);
const ROUNDS = Number(Deno.env.get("ROUNDS") ?? 5);
const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 3);

/** `command` in a shell that first raises its open-file limit as far as it may go. */
const raised = (command: string[]) => ["bash", "-c", `ulimit -n "$(ulimit -Hn)" && exec "$0" "$@"`, ...command];

interface Wrk {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
}

function ms(value: string, unit: string): number {
  return Number(value) * (unit === "us" ? 0.001 : unit === "s" ? 1000 : 1);
}

async function wrk(url: string, connections: number): Promise<Wrk> {
  const args = ["-t1", `-c${connections}`, `-d${SECONDS}s`, "--latency", url];
  const out = new TextDecoder().decode((await new Deno.Command("wrk", { args, stdout: "piped" }).output()).stdout);
  const [, p50, u50] = /50%\s+([\d.]+)(us|ms|s)/.exec(out)!;
  const [, p99, u99] = /99%\s+([\d.]+)(us|ms|s)/.exec(out)!;
  const errors = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0) +
    [...out.matchAll(/(?:connect|read|write|timeout) (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)![1]), p50Ms: ms(p50, u50), p99Ms: ms(p99, u99), errors };
}

/** Resident memory of a process, in KiB. */
async function rssKiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]);
}

/** A line-oriented child: send a line, read the answer line. */
function talk(child: Deno.ChildProcess) {
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  return {
    async ask(line: string): Promise<string> {
      await writer.write(new TextEncoder().encode(`${line}\n`));
      while (!buffered.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the holder ended: ${buffered}`);
        buffered += value;
      }
      const [answer, ...rest] = buffered.split("\n");
      buffered = rest.join("\n");
      return answer;
    },
    async close() {
      await writer.close();
      await reader.cancel().catch(() => {});
    },
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function measure(runtime: string, command: string[]) {
  const server = new Deno.Command(raised(command)[0], {
    args: raised(command).slice(1),
    env: {
      PORT: "0",
      MAX_CONNECTIONS: String(IDLE + 1000),
      HEADERS_TIMEOUT_MS: "600000",
      KEEP_ALIVE_TIMEOUT_MS: "600000",
    },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  while (!/listening on (\S+)/.test(output)) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`${runtime} server ended: ${output}`);
    output += value;
  }
  const url = /listening on (\S+)/.exec(output)![1];
  const holderCommand = raised([Deno.execPath(), "run", "-A", `${root}bench/idle_holder.ts`]);
  const holderProcess = new Deno.Command(holderCommand[0], {
    args: holderCommand.slice(1),
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const holder = talk(holderProcess);
  const health = `${url}/health`;
  await wrk(health, 32); // warm-up
  const rows: { state: string; one: Wrk; many: Wrk; rssKiB: number }[] = [];
  const perConnection: number[] = [];
  let heldCount = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const before = await rssKiB(server.pid);
    rows.push({ state: "without", one: await wrk(health, 1), many: await wrk(health, 32), rssKiB: before });
    const [, held, failed] = (await holder.ask(`open ${url} ${IDLE}`)).split(" ");
    heldCount = Number(held);
    if (Number(failed) > 0) console.error(`${runtime}: ${failed} of ${IDLE} connections failed`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const during = await rssKiB(server.pid);
    perConnection.push((during - before) * 1024 / heldCount);
    rows.push({ state: `with ${heldCount}`, one: await wrk(health, 1), many: await wrk(health, 32), rssKiB: during });
    await holder.ask("close");
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const settled = await rssKiB(server.pid);
  await holder.close();
  await holderProcess.status;
  server.kill("SIGTERM");
  await server.status;
  await lines.cancel().catch(() => {});

  const summary = (idle: boolean) => {
    const r = rows.filter((row) => (row.state !== "without") === idle);
    return {
      p50One: median(r.map((x) => x.one.p50Ms)),
      p99One: median(r.map((x) => x.one.p99Ms)),
      rps: median(r.map((x) => x.many.rps)),
      p99Many: median(r.map((x) => x.many.p99Ms)),
      errors: r.reduce((sum, x) => sum + x.one.errors + x.many.errors, 0),
    };
  };
  const without = summary(false);
  const held = summary(true);
  console.log(`\n${runtime}: ${ROUNDS} interleaved rounds, ${SECONDS} s per wrk run, ${heldCount} idle connections`);
  for (const r of rows) {
    console.log(
      `  ${r.state.padEnd(12)} 1 conn: p50 ${r.one.p50Ms.toFixed(3)} ms, p99 ${r.one.p99Ms.toFixed(3)} ms | ` +
        `32 conns: ${r.many.rps.toFixed(0)} req/s, p99 ${r.many.p99Ms.toFixed(2)} ms | RSS ${
          (r.rssKiB / 1024).toFixed(1)
        } MiB`,
    );
  }
  console.log(
    `  median without → with: 1 conn p99 ${without.p99One.toFixed(3)} → ${held.p99One.toFixed(3)} ms ` +
      `(${(held.p99One / without.p99One).toFixed(2)}×); 32 conns ${without.rps.toFixed(0)} → ${
        held.rps.toFixed(0)
      } req/s (${(held.rps / without.rps).toFixed(2)}×), p99 ${without.p99Many.toFixed(2)} → ${
        held.p99Many.toFixed(2)
      } ms (${(held.p99Many / without.p99Many).toFixed(2)}×); errors ${without.errors} / ${held.errors}`,
  );
  console.log(
    `  RSS per idle connection: ${perConnection.map((b) => `${(b / 1024).toFixed(1)} KiB`).join(", ")} (per round; ` +
      `the first is from a fresh process); RSS 5 s after the last release ${(settled / 1024).toFixed(1)} MiB`,
  );
}

const dir = await Deno.makeTempDir();
try {
  await bundleAll(dir);
  await measure("Deno", [Deno.execPath(), "run", "-A", `${root}server/main.ts`]);
  await measure("Node bundle", ["node", `${dir}/server.mjs`]);
} finally {
  await Deno.remove(dir, { recursive: true });
}
