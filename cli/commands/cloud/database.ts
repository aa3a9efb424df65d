import {
  type CloudClient,
  createDatabase,
  deleteDatabase,
  getDatabase,
  listDatabases,
  updateDatabase,
} from "../../../lib/cloud/mod.ts";
import { StoreCtlError } from "../../../lib/errors/mod.ts";
import { type Flag, flag } from "../../framework/params.ts";
import { type Column, command, group } from "../../framework/spec.ts";
import { TASK_COLUMNS, taskCommand } from "./wait.ts";
import { DATABASE_FLAG, LIMIT_FLAG, required, SUBSCRIPTION_FLAG } from "./common.ts";
import { DATA_FLAG, given, readBody } from "../input.ts";

const COLUMNS: readonly Column[] = [
  { header: "ID", value: "databaseId" },
  { header: "NAME", value: "name" },
  { header: "STATUS", value: "status" },
  { header: "SIZE (GB)", value: (db) => db.datasetSizeInGb ?? memoryLimit(db.memoryLimitInGb) },
  { header: "VERSION", value: "redisVersion" },
  { header: "REGION", value: (db) => [db.provider, db.region].filter(Boolean).join(" ") || undefined },
  { header: "ENDPOINT", value: "publicEndpoint" },
];

/** The deprecated size, marked as such: it counts replication and overhead, unlike the dataset size. */
const memoryLimit = (gb: unknown) => (gb === undefined ? undefined : `${gb} (memory limit)`);

/** A number of GB above 0. */
const gigabytes = (brief: string): Flag<number | undefined> => ({
  kind: "parsed",
  brief,
  parse: (input) => {
    const value = Number(input);
    if (input.trim() === "" || !Number.isFinite(value) || value <= 0) {
      throw new StoreCtlError("usage", `must be a number of GB greater than 0; got '${input}'`);
    }
    return value;
  },
  placeholder: "gb",
});

/** The database's size: the dataset (current) or the total memory limit (deprecated by the API). */
const SIZE_FLAGS = {
  datasetSizeGb: gigabytes("the most data the database holds, in GB, e.g. 1 or 0.5"),
  memoryLimitGb: gigabytes("deprecated by the API: total memory in GB, replication and overhead included"),
};

/** The size fields of a body, from the flags over the -d body's; one kind at most. */
function sizeOf(body: Record<string, unknown>, flags: { datasetSizeGb?: number; memoryLimitGb?: number }) {
  const sized = { ...body, ...given({ datasetSizeInGb: flags.datasetSizeGb, memoryLimitInGb: flags.memoryLimitGb }) };
  if (sized.datasetSizeInGb !== undefined && sized.memoryLimitInGb !== undefined) {
    throw new StoreCtlError("usage", "Give --dataset-size-gb or --memory-limit-gb, not both", {
      tips: ["The API takes one size: datasetSizeInGb (current) or memoryLimitInGb (deprecated)"],
    });
  }
  return sized;
}

const NAME_FLAG = flag.string("the database's name", { placeholder: "name" });

/** Both ids of a database. */
const ids = (flags: { subscription: number; databaseId: number }) => [flags.subscription, flags.databaseId] as const;

/** With `--wait`: the database the task made or changed. */
async function finished(
  task: { response?: { resourceId?: number | string; additionalResourceId?: number | string } },
  client: CloudClient,
  subscription: number,
) {
  const id = Number(task.response?.resourceId);
  if (!Number.isInteger(id)) return task;
  return await getDatabase(client, Number(task.response?.additionalResourceId ?? subscription), id);
}

const list = command({
  summary: "list the databases of a subscription",
  flags: { subscription: SUBSCRIPTION_FLAG, limit: LIMIT_FLAG },
  output: { columns: COLUMNS, empty: "No databases in this subscription" },
  examples: [
    "ctl cloud database list --subscription 156400",
    "ctl cloud database list --subscription 156400 -q '[].name'",
  ],
  async run({ flags }, f) {
    const subscription = flags.subscription;
    return await listDatabases(await f.cloud(), subscription, { limit: flags.limit });
  },
});

const get = command({
  summary: "show one database",
  flags: { subscription: SUBSCRIPTION_FLAG, databaseId: DATABASE_FLAG },
  output: { columns: COLUMNS },
  examples: ["ctl cloud database get --subscription 156400 --database-id 51 -o yaml"],
  async run({ flags }, f) {
    return await getDatabase(await f.cloud(), ...ids(flags));
  },
});

const create = taskCommand({
  summary: "create a database in a subscription",
  description: `Create a database in a subscription. --name and a size are required unless the -d body has
them: --dataset-size-gb (the API's datasetSizeInGb) or the deprecated --memory-limit-gb
(memoryLimitInGb), not both. Flags override fields of the body. The API works asynchronously:
without --wait this prints the task (follow it with 'ctl cloud task wait <id>'); with --wait it
prints the new database once ready, exits 8 if the task fails and 11 if --wait-timeout passes
first.`,
  flags: { subscription: SUBSCRIPTION_FLAG, name: NAME_FLAG, ...SIZE_FLAGS, data: DATA_FLAG },
  output: { columns: COLUMNS },
  async resolve(task, f, { flags }) {
    return await finished(task, await f.cloud(), flags.subscription);
  },
  examples: [
    "ctl cloud database create --subscription 156400 --name cache --dataset-size-gb 1 --wait",
    "ctl cloud database create --subscription 156400 -d @database.json --name cache-2",
  ],
  async start({ flags }, f) {
    const subscription = flags.subscription;
    const body = sizeOf({ ...await readBody(f, flags.data), ...given({ name: flags.name }) }, flags);
    required(body.name, "--name", 'Give --name <name>, or a "name" field in the -d body');
    required(
      body.datasetSizeInGb ?? body.memoryLimitInGb,
      "--dataset-size-gb",
      'Give --dataset-size-gb <gb> (or the deprecated --memory-limit-gb), or a "datasetSizeInGb" field in the -d body',
    );
    return await createDatabase(await f.cloud(), subscription, body as { name: string });
  },
});

const update = taskCommand({
  summary: "change a database's name, memory limit or other fields",
  description: `Change a database: --name, --dataset-size-gb (or the deprecated --memory-limit-gb), or any
updatable field in a -d body (flags override its fields). Without --wait this prints the task;
with --wait, the changed database.`,
  flags: {
    subscription: SUBSCRIPTION_FLAG,
    databaseId: DATABASE_FLAG,
    name: NAME_FLAG,
    ...SIZE_FLAGS,
    data: DATA_FLAG,
  },
  output: { columns: COLUMNS },
  async resolve(task, f, { flags }) {
    return await finished(task, await f.cloud(), flags.subscription);
  },
  examples: ["ctl cloud database update --subscription 156400 --database-id 51 --dataset-size-gb 2 --wait"],
  async start({ flags }, f) {
    const [subscription, database] = ids(flags);
    const changes = sizeOf({ ...await readBody(f, flags.data), ...given({ name: flags.name }) }, flags);
    if (Object.keys(changes).length === 0) {
      throw new StoreCtlError("usage", "Nothing to change", {
        tips: ["Give --name, --dataset-size-gb, or a -d body with the fields to change"],
      });
    }
    return await updateDatabase(await f.cloud(), subscription, database, changes);
  },
});

const remove = taskCommand({
  summary: "delete a database",
  description: `Delete a database. Asks for confirmation on a terminal; elsewhere give --yes. Without --wait
this prints the task; with --wait, the finished task.`,
  flags: { subscription: SUBSCRIPTION_FLAG, databaseId: DATABASE_FLAG },
  confirm: ({ flags }) => {
    const [subscription, database] = ids(flags);
    return `Delete database ${database} of subscription ${subscription}?`;
  },
  output: { columns: TASK_COLUMNS },
  examples: ["ctl cloud database delete --subscription 156400 --database-id 51 --yes --wait"],
  async start({ flags }, f) {
    return await deleteDatabase(await f.cloud(), ...ids(flags));
  },
});

/** `ctl cloud database …`. */
export default group("manage the databases of a subscription", { list, get, create, update, delete: remove });
