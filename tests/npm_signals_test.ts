/**
 * What a process manager (or `kill $!`) does: SIGTERM or SIGINT to the process it started, and
 * nothing else. `npm start` and `npm run emulator` (as the README writes them) and `deno task server` must then leave nothing
 * running: every process of the tree gone and every port free within 5 s.
 */
import { assert } from "../testing/assert.ts";
import { missingTools, requireTool } from "../testing/tools.ts";
import { until } from "../testing/until.ts";
import { docCommands } from "../testing/doc_blocks.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** A documented command as argv: its program on PATH, then its words, then `extra`. */
const argv = (line: string, extra: string[] = []) => () => {
  const [program, ...words] = line.split(" ");
  return [requireTool(program), ...words, ...extra];
};
const [npmStart] = await docCommands("start");
const [npmEmulator] = await docCommands("emulator");
const STARTS: readonly { name: string; command: () => string[] }[] = [
  { name: npmStart, command: argv(npmStart) }, // PORT=0 below
  { name: npmEmulator, command: argv(npmEmulator, ["--", "--cloud-port", "0", "--enterprise-port", "0"]) },
  { name: "deno task server", command: () => [Deno.execPath(), "task", "server"] },
];

/** The processes whose parent is `pid`, and theirs, from /proc. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const stat = (() => {
      try {
        return Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      } catch {
        return undefined; // gone meanwhile
      }
    })();
    const ppid = Number(stat?.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (!parents.has(ppid)) parents.set(ppid, []);
    parents.get(ppid)!.push(Number(entry.name));
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of parents.get(queue.shift()!) ?? []) (out.push(child), queue.push(child));
  }
  return out;
}

const alive = (pid: number) => {
  try {
    return !/^\S+ \(.*\) Z/.test(Deno.readTextFileSync(`/proc/${pid}/stat`)); // a zombie has ended
  } catch {
    return false;
  }
};
const listening = (port: number) =>
  Deno.connect({ hostname: "127.0.0.1", port }).then((c) => (c.close(), true), () => false);

for (const start of STARTS) {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    Deno.test(`${start.name}: ${signal} to the process started leaves nothing running`, {
      ignore: missingTools("npm", "node"),
    }, async () => {
      const [program, ...args] = start.command();
      const child = new Deno.Command(program, {
        args,
        cwd: ROOT,
        env: { PORT: "0", NO_COLOR: "1" },
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let output = "";
      while (!/listening on|Press Ctrl\+C/.test(output)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`${start.name} ended before it listened:\n${output}`);
        output += value;
      }
      reader.releaseLock();
      void child.stdout.cancel().catch(() => {});
      const ports = [...output.matchAll(/127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1]));
      const tree = descendants(child.pid);
      assert(ports.length > 0 && tree.length > 0, `${ports} ${tree}`);

      const all = [child.pid, ...tree];
      let exited = false;
      child.status.then(() => exited = true);
      try {
        child.kill(signal);
        await until(
          () => `still running: ${all.filter(alive).join(", ") || "none"}; ports ${ports.join(", ")}`,
          async () =>
            exited && all.every((pid) => !alive(pid)) && !(await Promise.all(ports.map(listening))).includes(true),
          5_000,
        );
      } finally {
        for (const pid of all.filter(alive)) Deno.kill(pid, "SIGKILL");
        await child.status;
      }
    });
  }
}
