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
import { TASK_COLUMNS } from "./task.ts";
import {
  DATA_FLAG,
  DATABASE_FLAG,
  given,
  LIMIT_FLAG,
  readBody,
  required,
  SUBSCRIPTION_FLAG,
  SUBSCRIPTION_TIP,
} from "./common.ts";

const COLUMNS: readonly Column[] = [
  { header: "ID", value: "databaseId" },
  { header: "NAME", value: "name" },
  { header: "STATUS", value: "status" },
  { header: "MEMORY (GB)", value: "memoryLimitInGb" },
  { header: "VERSION", value: "redisVersion" },
  { header: "REGION", value: (db) => [db.provider, db.region].filter(Boolean).join(" ") || undefined },
  { header: "ENDPOINT", value: "publicEndpoint" },
];

const DATABASE_TIP = "Give --database-id <id>; ctl cloud database list --subscription <id> shows the ids";

/** `--memory-limit-gb`: a number of GB above 0. */
const MEMORY_FLAG: Flag<number | undefined> = {
  kind: "parsed",
  brief: "memory limit in GB, e.g. 1 or 0.5",
  parse: (input) => {
    const value = Number(input);
    if (input.trim() === "" || !Number.isFinite(value) || value <= 0) {
      throw new StoreCtlError("usage", `must be a number of GB greater than 0; got '${input}'`);
    }
    return value;
  },
  placeholder: "gb",
};

const NAME_FLAG = flag.string("the database's name", { placeholder: "name" });

/** Both ids of a database, required before any request. */
function ids(flags: { subscription?: number; databaseId?: number }) {
  return [
    required(flags.subscription, "--subscription", SUBSCRIPTION_TIP),
    required(flags.databaseId, "--database-id", DATABASE_TIP),
  ] as const;
}

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
    const subscription = required(flags.subscription, "--subscription", SUBSCRIPTION_TIP);
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

const create = command({
  summary: "create a database in a subscription",
  description: `Create a database in a subscription. --name and --memory-limit-gb are required unless the -d
body has them; flags override fields of the body. The API works asynchronously: without --wait
this prints the task (follow it with 'ctl cloud task wait <id>'); with --wait it prints the new
database once ready, exits 8 if the task fails and 11 if --wait-timeout passes first.`,
  flags: { subscription: SUBSCRIPTION_FLAG, name: NAME_FLAG, memoryLimitGb: MEMORY_FLAG, data: DATA_FLAG },
  output: { columns: COLUMNS },
  wait: {
    async resolve(task, f, { flags }) {
      return await finished(task, await f.cloud(), flags.subscription!);
    },
  },
  examples: [
    "ctl cloud database create --subscription 156400 --name cache --memory-limit-gb 1 --wait",
    "ctl cloud database create --subscription 156400 -d @database.json --name cache-2",
  ],
  async run({ flags }, f) {
    const subscription = required(flags.subscription, "--subscription", SUBSCRIPTION_TIP);
    const body = {
      ...await readBody(f, flags.data),
      ...given({ name: flags.name, memoryLimitInGb: flags.memoryLimitGb }),
    };
    required(body.name, "--name", 'Give --name <name>, or a "name" field in the -d body');
    required(
      body.memoryLimitInGb,
      "--memory-limit-gb",
      'Give --memory-limit-gb <gb>, or a "memoryLimitInGb" field in the -d body',
    );
    return await createDatabase(await f.cloud(), subscription, body as { name: string; memoryLimitInGb: number });
  },
});

const update = command({
  summary: "change a database's name, memory limit or other fields",
  description: `Change a database: --name, --memory-limit-gb, or any updatable field in a -d body (flags
override its fields). Without --wait this prints the task; with --wait, the changed database.`,
  flags: {
    subscription: SUBSCRIPTION_FLAG,
    databaseId: DATABASE_FLAG,
    name: NAME_FLAG,
    memoryLimitGb: MEMORY_FLAG,
    data: DATA_FLAG,
  },
  output: { columns: COLUMNS },
  wait: {
    async resolve(task, f, { flags }) {
      return await finished(task, await f.cloud(), flags.subscription!);
    },
  },
  examples: ["ctl cloud database update --subscription 156400 --database-id 51 --memory-limit-gb 2 --wait"],
  async run({ flags }, f) {
    const [subscription, database] = ids(flags);
    const changes = {
      ...await readBody(f, flags.data),
      ...given({ name: flags.name, memoryLimitInGb: flags.memoryLimitGb }),
    };
    if (Object.keys(changes).length === 0) {
      throw new StoreCtlError("usage", "Nothing to change", {
        tips: ["Give --name, --memory-limit-gb, or a -d body with the fields to change"],
      });
    }
    return await updateDatabase(await f.cloud(), subscription, database, changes);
  },
});

const remove = command({
  summary: "delete a database",
  description: `Delete a database. Asks for confirmation on a terminal; elsewhere give --yes. Without --wait
this prints the task; with --wait, the finished task.`,
  flags: { subscription: SUBSCRIPTION_FLAG, databaseId: DATABASE_FLAG },
  confirm: ({ flags }) => {
    const [subscription, database] = ids(flags);
    return `Delete database ${database} of subscription ${subscription}?`;
  },
  wait: {},
  output: { columns: TASK_COLUMNS },
  examples: ["ctl cloud database delete --subscription 156400 --database-id 51 --yes --wait"],
  async run({ flags }, f) {
    return await deleteDatabase(await f.cloud(), ...ids(flags));
  },
});

/** `ctl cloud database …`. */
export default group("manage the databases of a subscription", { list, get, create, update, delete: remove });
