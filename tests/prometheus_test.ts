/**
 * Debian's real `prometheus` scrapes the service's metrics listener (`METRICS_PORT`), on Deno and
 * on the Node bundle, and a PromQL query through its HTTP API returns the requests and tasks the
 * test made.
 */
import { assertEquals } from "../testing/assert.ts";
import { DENO_SERVER, type ServerProcess, startServer } from "../testing/server_process.ts";
import { missingTools, requireTool } from "../testing/tools.ts";
import { until } from "../testing/until.ts";
import { bundleAll } from "../tools/bundle.ts";

const freePort = () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
};

/** Starts prometheus scraping `target` every second; its API's URL, and a stop. */
async function startPrometheus(target: string, dir: string) {
  const port = freePort();
  await Deno.writeTextFile(
    `${dir}/prometheus.yml`,
    `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: storectl\n    static_configs:\n      - targets: ["${target}"]\n`,
  );
  const child = new Deno.Command(requireTool("prometheus"), {
    args: [
      `--config.file=${dir}/prometheus.yml`,
      `--storage.tsdb.path=${dir}/data`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  const logs = child.stderr.pipeThrough(new TextDecoderStream());
  let said = "";
  const reading = (async () => {
    for await (const text of logs) said = (said + text).slice(-4_000);
  })();
  await until(
    () => `prometheus ready (it said: ${said.slice(-500)})`,
    async () => (await fetch(`${url}/-/ready`).then(async (r) => (await r.body?.cancel(), r.ok), () => false)),
  );
  return {
    url,
    async [Symbol.asyncDispose]() {
      child.kill("SIGTERM");
      await child.status;
      await reading;
    },
  };
}

/** A PromQL query's single value, or undefined while it has none. */
async function query(prometheus: string, promql: string): Promise<number | undefined> {
  const body = await (await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(promql)}`)).json();
  const value = body.data?.result?.[0]?.value?.[1];
  return value === undefined ? undefined : Number(value);
}

async function scraped(command: string[]) {
  const dir = await Deno.makeTempDir({ prefix: "prometheus-" });
  try {
    await using server = await startServer(command, { METRICS_PORT: "0" });
    const target = new URL(server.banner.match(/metrics: (\S+?)\)?$/)![1]).host;
    await using prometheus = await startPrometheus(target, dir);
    await makeTraffic(server);
    let seen: (number | undefined)[] = [];
    await until(
      () => `prometheus has the test's requests and tasks (last: ${seen})`,
      async () => {
        seen = await Promise.all([
          query(prometheus.url, 'sum(storectl_http_request_duration_seconds_count{route="/tasks/:task_id"})'),
          query(prometheus.url, 'sum(storectl_tasks_finished_total{kind="demo",outcome="done"})'),
        ]);
        return seen[0] === 3 && seen[1] === 2;
      },
      30_000,
      250,
    );
    assertEquals(seen, [3, 2]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function makeTraffic(server: ServerProcess) {
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${server.url}/tasks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kind: "demo", input: { steps: 0 } }),
    });
    assertEquals(res.status, 201);
    await res.body?.cancel();
  }
  for (const id of ["a", "b", "c"]) await (await fetch(`${server.url}/tasks/${id}`)).body?.cancel();
}

Deno.test("prometheus scrapes the Deno server's metrics; PromQL finds its requests and tasks", {
  ignore: missingTools("prometheus"),
}, () => scraped(DENO_SERVER));

Deno.test("prometheus scrapes the Node bundle's metrics", { ignore: missingTools("prometheus", "node") }, async () => {
  const dir = await Deno.makeTempDir({ prefix: "prometheus-bundle-" });
  try {
    await bundleAll(dir);
    await scraped([requireTool("node"), `${dir}/server.mjs`]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the example scrape config and alert rules pass promtool check config and check rules", {
  ignore: missingTools("promtool"),
}, async () => {
  const dir = new URL("../examples/prometheus/", import.meta.url).pathname;
  for (const args of [["check", "config", "prometheus.yml"], ["check", "rules", "alerts.yml"]]) {
    const out = await new Deno.Command(requireTool("promtool"), { args, cwd: dir, stdout: "piped", stderr: "piped" })
      .output();
    const said = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assertEquals(out.code, 0, `promtool ${args.join(" ")}: ${said}`);
  }
});
