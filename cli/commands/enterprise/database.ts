import {
  bdbAddress,
  bdbPorts,
  bdbStats,
  createBdb,
  deleteBdb,
  getBdb,
  listBdbs,
  updateBdb,
} from "../../../lib/enterprise/mod.ts";
import { flag } from "../../framework/params.ts";
import { type Column, command, group } from "../../framework/spec.ts";
import {
  BDB_STATS_COLUMNS,
  one,
  requestBody,
  requireChanges,
  requireFields,
  sizeColumn,
  sizeFlag,
  uidArg,
} from "./common.ts";
import { DATA_FLAG } from "../input.ts";

const COLUMNS: readonly Column[] = [
  { header: "UID", value: "uid" },
  { header: "NAME", value: "name" },
  { header: "STATUS", value: "status" },
  sizeColumn("MEMORY", "memory_size"),
  { header: "SHARDS", value: "shards_count" },
  { header: "REPLICATION", value: "replication" },
  // A real bdb shows port 0 at the top level: clients connect to its endpoints.
  { header: "PORT", value: (row) => bdbPorts(row) },
  { header: "ENDPOINT", value: (row) => bdbAddress(row) },
  { header: "VERSION", value: "version" },
];

const LIST = "ctl enterprise database list";
const UID = uidArg("database", "the database's numeric id", LIST);
const NAME = flag.string("database name: letters, digits and '-'", { placeholder: "name" });

const list = command({
  summary: "list the cluster's databases",
  output: { columns: COLUMNS, empty: "No databases" },
  examples: ["ctl enterprise database list", "ctl enterprise database list -q '[].{name: name, bytes: memory_size}'"],
  async run(_input, f) {
    return await listBdbs(await f.enterprise());
  },
});

const get = command({
  summary: "show one database",
  args: [UID],
  output: { columns: COLUMNS },
  examples: ["ctl enterprise database get 1", "ctl enterprise database get 1 -o yaml"],
  async run({ args: [uid] }, f) {
    return await one(getBdb(await f.enterprise(), uid), LIST);
  },
});

const create = command({
  summary: "create a database",
  description: `Create a database. --name and --memory-size are required, unless a -d body has "name" and
"memory_size" (bytes); flags override the body's fields. Sizes take SI units (KB, MB, GB, TB:
powers of 1000) or IEC units (KiB, MiB, GiB, TiB: powers of 1024), or a number of bytes.`,
  flags: { name: NAME, memorySize: sizeFlag("memory limit"), data: DATA_FLAG },
  output: { columns: COLUMNS },
  examples: [
    "ctl enterprise database create --name cache --memory-size 1GiB",
    `ctl enterprise database create -d '{"name":"orders","memory_size":536870912,"replication":true}'`,
  ],
  async run({ flags }, f) {
    const body = await requestBody(f, flags.data, { name: flags.name, memory_size: flags.memorySize });
    requireFields(body, { name: "--name", memory_size: "--memory-size" });
    return await createBdb(await f.enterprise(), body as { name: string; memory_size: number });
  },
});

const update = command({
  summary: "change a database's name, memory limit or other fields",
  args: [UID],
  flags: { name: NAME, memorySize: sizeFlag("new memory limit"), data: DATA_FLAG },
  output: { columns: COLUMNS },
  examples: [
    "ctl enterprise database update 1 --memory-size 2GiB",
    `ctl enterprise database update 1 -d '{"eviction_policy":"allkeys-lru"}'`,
  ],
  async run({ args: [uid], flags }, f) {
    const body = await requestBody(f, flags.data, { name: flags.name, memory_size: flags.memorySize });
    requireChanges(body, "--name, --memory-size");
    return await one(updateBdb(await f.enterprise(), uid, body), LIST);
  },
});

const remove = command({
  summary: "delete a database and its data",
  description: "Delete a database and its data. Asks first on a terminal; without one, --yes is required.",
  args: [UID],
  confirm: ({ args: [uid] }) => `Delete database ${uid} and all its data?`,
  examples: ["ctl enterprise database delete 3", "ctl enterprise database delete 3 --yes"],
  async run({ args: [uid] }, f) {
    await one(deleteBdb(await f.enterprise(), uid), LIST);
    f.ctx.stderr.write(`Deleted database ${uid}\n`);
  },
});

const stats = command({
  summary: "show a database's statistics of the last interval",
  args: [UID],
  description: `Show a database's statistics of the last interval, from GET /v1/bdbs/stats/last/{uid}
(on a 404, the older spelling /v1/bdbs/{uid}/stats/last is tried once). CPU is per shard and of
the main thread, as fractions of a core shown as percentages; -o json shows every metric.`,
  output: { columns: BDB_STATS_COLUMNS },
  examples: ["ctl enterprise database stats 1", "ctl enterprise database stats 1 -q used_memory"],
  async run({ args: [uid] }, f) {
    return await one(bdbStats(await f.enterprise(), uid), LIST);
  },
});

/** `ctl enterprise database …`: the cluster's databases (bdbs). */
export default group("manage the cluster's databases", { list, get, create, update, delete: remove, stats });
