import { assert, assertEquals } from "../../testing/assert.ts";
import { tableCells } from "../../testing/table_text.ts";
import { columnRole, renderTable, type TableColumn } from "./table.ts";
import Table from "cli-table3";

const lines = (text: string) => text.trimEnd().split("\n");
const widest = (text: string) => Math.max(...lines(text).map((line) => [...line].length));

/** Support-package jobs as `enterprise support-package list` shows them. */
const JOB_COLUMNS: TableColumn[] = [
  { header: "TASK ID", value: "task_id" },
  { header: "STATUS", value: "status" },
  { header: "PROGRESS", value: "progress" },
  { header: "TYPE", value: "package_type" },
  { header: "FILE", value: "file_path" },
  { header: "STARTED", value: "started" },
  { header: "MESSAGE", value: "message" },
];
const JOBS = [{
  task_id: "sp-20260314T101500-7f3a",
  status: "completed",
  progress: "100%",
  package_type: "cluster",
  file_path: "/home/ana/support-package-cluster-20260314T101500.tar.gz",
  started: "2026-03-14T10:15:00Z",
  message: "downloaded 1.2 GB and optimized it to 310 MB",
}];

/** Cloud tasks: a 36-character id first. */
const TASK_COLUMNS: TableColumn[] = [
  { header: "TASK ID", value: "taskId" },
  { header: "STATUS", value: "status" },
  { header: "COMMAND", value: "commandType" },
  { header: "RESOURCE", value: "response.resourceId" },
  { header: "DESCRIPTION", value: "description", role: "text" },
];
const TASKS = [{
  taskId: "25b007d9-ac99-4d5e-9a57-3c1e0f2b7d11",
  status: "processing-completed",
  commandType: "subscriptionCreateRequest",
  response: { resourceId: 156400 },
  description: "Task request for creating a subscription with two databases",
}];

/** A wide object, shaped like an enterprise bdb (redis-enterprise-rs tests/fixtures: many keys per database). */
const BDBS = [1, 2].map((uid) => ({
  uid,
  name: `leaderboard-${uid}`,
  type: "redis",
  memory_size: 1073741824,
  status: "active",
  port: 12000 + uid,
  shards_count: 1,
  replication: false,
  sharding: false,
  eviction_policy: "volatile-lru",
  version: "7.2",
  created_time: "2026-01-05T09:00:00Z",
  last_changed_time: "2026-03-01T12:00:00Z",
  endpoints: [{ addr: ["10.0.0.1"], port: 12000 + uid }],
}));

Deno.test("columnRole(): the first column, NAME and STATUS are keys unless the column says otherwise", () => {
  const columns: TableColumn[] = [
    { header: "TASK ID", value: "taskId" },
    { header: "NAME", value: "name" },
    { header: "STATUS", value: "status" },
    { header: "RESOURCE", value: "response.resourceId" },
    { header: "NAME ON CARD", value: "nameOnCard" },
    { header: "DESCRIPTION", value: "description", role: "text" },
    { header: "STATUS", value: "status", role: "value" },
  ];
  assertEquals(columns.map(columnRole), ["key", "key", "key", "value", "value", "text", "value"]);
});

Deno.test("renderTable() never cuts ids: it narrows and then drops other columns (80 columns)", () => {
  const hidden: string[][] = [];
  const jobs = renderTable(JOBS, JOB_COLUMNS, 80, Table, (names) => hidden.push([...names]));
  assert(widest(jobs) <= 80, jobs);
  const [head, row] = tableCells(jobs);
  assertEquals(head[0], "TASK ID");
  assertEquals(row[0], "sp-20260314T101500-7f3a");
  assertEquals(head.slice(0, 2), ["TASK ID", "STATUS"]);
  assertEquals(hidden.length, 1);
  assertEquals([...head, ...hidden[0]].sort(), JOB_COLUMNS.map((c) => c.header).sort(), "shown + hidden = all");
  for (const cell of head) assert(!cell.endsWith("…"), `header ${cell} is whole`);

  const tasks = renderTable(TASKS, TASK_COLUMNS, 80, Table);
  assert(widest(tasks) <= 80, tasks);
  const [taskHead, taskRow] = tableCells(tasks);
  assertEquals(taskRow[0], "25b007d9-ac99-4d5e-9a57-3c1e0f2b7d11");
  assertEquals(taskRow[taskHead.indexOf("RESOURCE")], "156400");
});

Deno.test("renderTable() at 120 columns shows more, still uncut ids", () => {
  const at80 = tableCells(renderTable(TASKS, TASK_COLUMNS, 80, Table))[0].length;
  const text = renderTable(TASKS, TASK_COLUMNS, 120, Table);
  assert(widest(text) <= 120, text);
  const [head, row] = tableCells(text);
  assert(head.length >= at80, `${head.length} columns at 120, ${at80} at 80`);
  assertEquals(head, TASK_COLUMNS.map((c) => c.header));
  assertEquals(row[0], TASKS[0].taskId);
});

Deno.test("renderTable() keeps ids whole even when they alone are wider than the terminal", () => {
  const text = renderTable(TASKS, TASK_COLUMNS, 30, Table);
  const [head, row] = tableCells(text);
  assertEquals(head[0], "TASK ID");
  assertEquals(row[0], TASKS[0].taskId);
});

Deno.test("renderTable() of wide objects shows the identifying columns that fit and names the rest by key", () => {
  const hidden: string[][] = [];
  const text = renderTable(BDBS, undefined, 80, Table, (names) => hidden.push([...names]));
  assert(widest(text) <= 80, text);
  const [head, ...rows] = tableCells(text);
  assertEquals(head.slice(0, 2), ["UID", "NAME"]);
  assert(head.includes("STATUS"), head.join(" "));
  assertEquals(rows.map((r) => r[1]), ["leaderboard-1", "leaderboard-2"]);
  for (const cell of [...head, ...rows.flat()]) assert(!cell.endsWith("…"), `'${cell}' is whole`);
  assert(head.length < 11, `${head.length} columns`);
  assertEquals(hidden.length, 1);
  assert(hidden[0].includes("endpoints") && hidden[0].includes("last_changed_time"), hidden[0].join());
  assertEquals(head.length + hidden[0].length, Object.keys(BDBS[0]).length);
});

Deno.test("renderTable() of wide objects puts ids, names and status before other keys", () => {
  const rows = [{
    paymentMethodType: "credit-card",
    memoryStorage: "ram",
    storageEncryption: false,
    cloudDetails: [{ provider: "AWS", regions: [{ region: "us-east-1" }] }],
    numberOfDatabases: 3,
    status: "active",
    name: "inventory-production",
    id: 156400,
  }];
  const [head] = tableCells(renderTable(rows, undefined, 60, Table));
  for (const key of ["ID", "NAME", "STATUS"]) assert(head.includes(key), `${key} in ${head.join(" ")}`);
});

Deno.test("renderTable() without a width (--wide, or not a terminal) shows every column whole", () => {
  let told = false;
  const text = renderTable(BDBS, undefined, undefined, Table, () => (told = true));
  const [head, row] = tableCells(text);
  assertEquals(head.length, Object.keys(BDBS[0]).length);
  assert(row.every((cell) => !cell.endsWith("…")));
  assertEquals(told, false);
});

Deno.test("renderTable() of one object: KEY/VALUE rows, keys whole, long values wrapped at the edge, nothing lost", () => {
  const description = "A subscription for the inventory service's caches and its nightly reports ".repeat(3).trim();
  const text = renderTable({ name: "a", description }, undefined, 40, Table);
  assert(widest(text) <= 40, text);
  const cells = tableCells(text);
  assertEquals(cells.map((c) => c[0]), ["name", "description", ...Array(cells.length - 2).fill("")]);
  assertEquals(cells.slice(1).map((c) => c[1]).join(" "), description);

  const columns: TableColumn[] = [{ header: "ID", value: "id" }, { header: "NAME", value: "name" }];
  assertEquals(tableCells(renderTable({ id: 7, name: "cache" }, columns, 80, Table)), [["ID", "7"], ["NAME", "cache"]]);
  const wide = tableCells(renderTable({ name: "a", description }, undefined, undefined, Table));
  assertEquals(wide, [["name", "a"], ["description", description]]);
});

Deno.test("renderTable() of a list cuts only free text, and leaves out empty columns before the others", () => {
  const rows = [
    { id: 1, name: "cache", spare: null, region: "us-east-1", note: "x".repeat(50) },
    { id: 2, name: "sessions", spare: "", region: "eu-west-1", note: "y".repeat(50) },
  ];
  const columns: TableColumn[] = [
    { header: "ID", value: "id" },
    { header: "NAME", value: "name" },
    { header: "SPARE", value: "spare" },
    { header: "REGION", value: "region" },
    { header: "NOTE", value: "note", role: "text" },
  ];
  const hidden: string[][] = [];
  const text = renderTable(rows, columns, 44, Table, (names) => hidden.push([...names]));
  assert(widest(text) <= 44, text);
  const [head, ...cells] = tableCells(text);
  assertEquals(head, ["ID", "NAME", "REGION", "NOTE"]);
  assertEquals(hidden, [["SPARE"]]);
  assertEquals(cells.map((r) => r.slice(0, 3)), [["1", "cache", "us-east-1"], ["2", "sessions", "eu-west-1"]]);
  assert(cells.every((r) => r[3].endsWith("…")), text);
});
