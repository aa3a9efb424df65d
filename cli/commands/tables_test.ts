/**
 * Every list and get command's table at 80 and 120 columns against the emulator, compared with
 * the same table without a width (`--wide`, every column whole): ids, names and status whole;
 * only free text cut; a single object as KEY/VALUE rows.
 */
import { assert, assertEquals } from "../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../testing/ctl_in_process.ts";
import { FIXED_CERTIFICATE } from "../../testing/certs.ts";
import { keyValueCells, tableCells } from "../../testing/table_text.ts";
import { loadAll } from "../framework/tree.ts";
import type { CommandSpec, GroupSpec } from "../framework/spec.ts";
import { ROOT } from "./mod.ts";

const tty = { stdout: true, stderr: true };
const widest = (text: string) => Math.max(...text.trimEnd().split("\n").map((line) => [...line].length));

/** A table command: a list (a header row, then rows) or a get (one object as KEY/VALUE rows). */
interface Case {
  readonly argv: readonly string[];
  readonly kind: "list" | "get";
  /** Headers that are never cut nor left out (ids, names, status). */
  readonly keys: readonly string[];
  /** Headers of free text, which may be cut (ending in `…`). */
  readonly text?: readonly string[];
  /** Live figures (stats), which change from one call to the next: compared by shape only. */
  readonly live?: boolean;
}

/** A value as the terminal showed it and whole, compared without the line breaks of wrapping. */
const unwrapped = (value: string) => value.replace(/\s+/g, "");

/** The columns of a list, by header: their cells top to bottom. */
function columnsOf(text: string): Map<string, string[]> {
  const [head, ...rows] = tableCells(text);
  return new Map(head.map((h, i) => [h, rows.map((row) => row[i])]));
}

/** Every command in the tree with table columns, as its words. */
function tableCommands(group: GroupSpec, prefix: string[] = []): string[] {
  return Object.entries(group.commands).flatMap(([name, entry]) => {
    if (entry.kind === "group") return tableCommands(entry, [...prefix, name]);
    const spec = entry as CommandSpec;
    return spec.output?.columns ? [[...prefix, name].join(" ")] : [];
  });
}

/** Commands with columns that change things: their tables are those of the get they resemble. */
const WRITERS = /\b(create|update|delete|remove|set|default)$| support-package (cluster|database|node|optimize)$/;

Deno.test("tables: every list and get command at 80 and 120 columns keeps ids, names and status whole", async () => {
  await using ctl = await inProcessCtl({ certificate: FIXED_CERTIFICATE });
  const env = { ...EMULATOR_ENV, XDG_STATE_HOME: `${ctl.dir}/state` };
  const json = async (argv: string[]) => {
    const r = await ctl([...argv, "-o", "json"], { env });
    assertEquals(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  const created = await json("cloud database create --subscription 156400 --name t --memory-limit-gb 1".split(" "));
  const task = created.taskId as string;
  const actions = await json(["enterprise", "action", "list"]);
  const action = actions["state-machines"][0].action_uid as string;
  const [crdb] = await json(["enterprise", "crdb", "list"]);
  const job = await json(["enterprise", "support-package", "cluster", "--yes"]);
  const [jobId] = (await json(["enterprise", "support-package", "list"])).map((j: { task_id: string }) => j.task_id);
  assert(job.success, JSON.stringify(job));
  assertEquals((await ctl(["files-key", "set", "a-long-upload-key-0123456789"], { env })).code, 0);
  for (const [name, deployment, url] of [["c", "cloud", "--api-url"], ["e", "enterprise", "--url"]]) {
    const given = deployment === "cloud"
      ? ["--api-key", "k", "--api-secret", "s", url, "https://api.example.com/v1"]
      : ["--username", "u", "--password", "p", url, "https://cluster.example.com:9443"];
    assertEquals((await ctl(["profile", "set", name, "--deployment", deployment, ...given], { env })).code, 0);
  }

  const sub = ["--subscription", "156400"];
  const cases: Case[] = [
    { argv: ["cloud", "account", "get"], kind: "get", keys: ["ID", "NAME"] },
    { argv: ["cloud", "payment-method", "list"], kind: "list", keys: ["ID"] },
    { argv: ["cloud", "region", "list"], kind: "list", keys: ["NAME"] },
    { argv: ["cloud", "subscription", "list"], kind: "list", keys: ["ID", "NAME", "STATUS"] },
    { argv: ["cloud", "subscription", "get", "156400"], kind: "get", keys: ["ID", "NAME", "STATUS"] },
    { argv: ["cloud", "database", "list", ...sub], kind: "list", keys: ["ID", "NAME", "STATUS"] },
    { argv: ["cloud", "database", "get", ...sub, "--database-id", "51"], kind: "get", keys: ["ID", "NAME", "STATUS"] },
    { argv: ["cloud", "task", "list"], kind: "list", keys: ["TASK ID", "STATUS"], text: ["DESCRIPTION"] },
    { argv: ["cloud", "task", "get", task], kind: "get", keys: ["TASK ID", "STATUS"] },
    { argv: ["cloud", "task", "wait", task], kind: "get", keys: ["TASK ID", "STATUS"] },
    { argv: ["cloud", "task", "watch", task], kind: "get", keys: ["TASK ID", "STATUS"] },
    {
      argv: ["cloud", "task", "list", "--recent"],
      kind: "list",
      keys: ["TASK ID", "STATUS"],
      text: ["DESCRIPTION"],
    },
    { argv: ["cloud", "acl", "user", "list"], kind: "list", keys: ["ID", "NAME", "STATUS"] },
    { argv: ["cloud", "acl", "role", "list"], kind: "list", keys: ["ID", "NAME"] },
    { argv: ["cloud", "acl", "rule", "list"], kind: "list", keys: ["ID", "NAME", "STATUS"] },
    { argv: ["cloud", "peering", "list", ...sub], kind: "list", keys: ["ID", "STATUS"] },
    { argv: ["cloud", "private-service-connect", "get", ...sub], kind: "get", keys: ["ID", "STATUS"] },
    { argv: ["cloud", "transit-gateway", "list", ...sub], kind: "list", keys: ["ID", "STATUS"] },
    { argv: ["enterprise", "status"], kind: "get", keys: ["CLUSTER", "HEALTH"] },
    { argv: ["enterprise", "cluster", "get"], kind: "get", keys: ["NAME", "STATUS"] },
    { argv: ["enterprise", "cluster", "stats"], kind: "get", keys: ["INTERVAL END"], live: true },
    { argv: ["enterprise", "cluster", "certificates"], kind: "list", keys: ["NAME"] },
    { argv: ["enterprise", "cluster", "alerts"], kind: "list", keys: ["ALERT"] },
    { argv: ["enterprise", "node", "list"], kind: "list", keys: ["UID", "STATUS"] },
    { argv: ["enterprise", "node", "get", "1"], kind: "get", keys: ["UID", "STATUS"] },
    { argv: ["enterprise", "node", "stats", "1"], kind: "get", keys: ["INTERVAL END"], live: true },
    { argv: ["enterprise", "action", "list"], kind: "list", keys: ["ACTION UID", "NAME", "STATUS"] },
    { argv: ["enterprise", "action", "get", action], kind: "get", keys: ["ACTION UID", "NAME", "STATUS"] },
    { argv: ["enterprise", "action", "wait", action], kind: "get", keys: ["ACTION UID", "NAME", "STATUS"] },
    { argv: ["enterprise", "database", "list"], kind: "list", keys: ["UID", "NAME", "STATUS"] },
    { argv: ["enterprise", "database", "get", "1"], kind: "get", keys: ["UID", "NAME", "STATUS"] },
    { argv: ["enterprise", "database", "stats", "1"], kind: "get", keys: ["INTERVAL END"], live: true },
    { argv: ["enterprise", "user", "list"], kind: "list", keys: ["UID", "NAME", "STATUS"] },
    { argv: ["enterprise", "user", "get", "1"], kind: "get", keys: ["UID", "NAME", "STATUS"] },
    { argv: ["enterprise", "role", "list"], kind: "list", keys: ["UID", "NAME"] },
    { argv: ["enterprise", "acl", "list"], kind: "list", keys: ["UID", "NAME"] },
    { argv: ["enterprise", "crdb", "list"], kind: "list", keys: ["GUID", "NAME"] },
    { argv: ["enterprise", "crdb", "get", crdb.guid], kind: "get", keys: ["GUID", "NAME"] },
    { argv: ["enterprise", "crdb-task", "list"], kind: "list", keys: ["ID", "STATUS"] },
    { argv: ["enterprise", "log", "list"], kind: "list", keys: ["TIME"] },
    {
      argv: ["enterprise", "support-package", "list"],
      kind: "list",
      keys: ["TASK ID", "STATUS"],
      text: ["FILE", "MESSAGE"],
    },
    { argv: ["enterprise", "support-package", "status", jobId], kind: "get", keys: ["TASK ID", "STATUS"] },
    { argv: ["files-key", "get"], kind: "get", keys: ["KEY"] },
    { argv: ["profile", "list"], kind: "list", keys: ["NAME"] },
    { argv: ["profile", "current"], kind: "list", keys: ["DEPLOYMENT"] },
  ];
  const missing = tableCommands(await loadAll(ROOT)).filter((command) => {
    const words = command.split(" ");
    return !WRITERS.test(command) && !cases.some((c) => c.argv.slice(0, words.length).join(" ") === command);
  });
  assertEquals(missing, [], "every list and get command with a table is tested here");

  for (const { argv, kind, keys, text = [], live } of cases) {
    const whole = await ctl([...argv, "--wide"], { env, tty, columns: 80 });
    assertEquals(whole.code, 0, `${argv.join(" ")}: ${whole.stderr}`);
    for (const columns of [80, 120]) {
      const what = `ctl ${argv.join(" ")} at ${columns} columns`;
      const r = await ctl([...argv], { env, tty, columns });
      assertEquals(r.code, 0, `${what}: ${r.stderr}`);
      assert(widest(r.stdout) <= columns, `${what} is wider than the terminal:\n${r.stdout}`);
      if (kind === "get") {
        // One object: a row per field, none left out, values whole (wrapped at the edge at most).
        const shown = keyValueCells(r.stdout);
        const all = keyValueCells(whole.stdout);
        assertEquals(shown.map(([k]) => k), all.map(([k]) => k), `${what}: every field, as KEY/VALUE rows`);
        for (const key of keys) assert(shown.some(([k]) => k === key), `${what}: ${key} shown`);
        shown.forEach(([key, value], i) => {
          if (live) assert(!value.endsWith("…"), `${what}: ${key} whole`);
          else assertEquals(unwrapped(value), unwrapped(all[i][1]), `${what}: ${key}`);
        });
        assert(!r.stderr.includes("did not fit"), `${what}: ${r.stderr}`);
        continue;
      }
      const shown = columnsOf(r.stdout);
      const all = columnsOf(whole.stdout);
      for (const key of keys) assert(shown.has(key), `${what}: ${key} shown:\n${r.stdout}`);
      for (const [header, cells] of shown) {
        cells.forEach((cell, i) => {
          const full = all.get(header)![i];
          if (cell === full) return;
          assert(text.includes(header), `${what}: ${header} is cut ('${cell}' of '${full}'):\n${r.stdout}`);
          assert(cell.endsWith("…") && full.startsWith(cell.slice(0, -1)), `${what}: '${cell}' of '${full}'`);
        });
      }
    }
  }
});

Deno.test("tables at 80 columns leave out the least important columns first", async () => {
  await using ctl = await inProcessCtl();
  const env = EMULATOR_ENV;
  const at80 = async (argv: string[]) => {
    const r = await ctl(argv, { env, tty, columns: 80 });
    assertEquals(r.code, 0, r.stderr);
    return { head: tableCells(r.stdout)[0], stdout: r.stdout, stderr: r.stderr };
  };
  // The number of databases tells more than the payment method's id.
  const subscriptions = await at80(["cloud", "subscription", "list"]);
  assert(subscriptions.head.includes("DATABASES"), subscriptions.stdout);
  // The raw layer: an address before an empty column; ids, names and status first.
  const nodes = await at80(["api", "enterprise", "get", "/v1/nodes", "-o", "table"]);
  assertEquals(nodes.head.slice(0, 2), ["UID", "STATUS"]);
  assert(nodes.head.includes("ADDR"), nodes.stdout);
  assert(!nodes.head.includes("SECOND_RACK_ID"), nodes.stdout);
  const bdbs = await at80(["api", "enterprise", "get", "/v1/bdbs", "-o", "table"]);
  assertEquals(bdbs.head.slice(0, 3), ["UID", "NAME", "STATUS"]);
  assert(!bdbs.head.includes("AUTHENTICATION_SASL_UNAME"), bdbs.stdout);
});

Deno.test("database stats: operations per second before CPU, and the interval's end whole", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl(["enterprise", "database", "stats", "1", "-o", "table"], {
    env: EMULATOR_ENV,
    tty,
    columns: 80,
  });
  assertEquals(r.code, 0, r.stderr);
  const fields = keyValueCells(r.stdout).map(([key]) => key);
  assertEquals(fields.slice(0, 2), ["INTERVAL END", "OPS/SEC"]);
});
