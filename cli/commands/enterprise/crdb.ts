import { createCrdb, getCrdb, listCrdbs } from "../../../lib/enterprise/mod.ts";
import { StoreCtlError } from "../../../lib/errors/mod.ts";
import { type Arg, arg, flag } from "../../framework/params.ts";
import { type Column, command, group } from "../../framework/spec.ts";
import { one, requestBody, requireFields, sizeColumn, sizeFlag } from "./common.ts";
import { DATA_FLAG } from "../input.ts";
import { TASK_COLUMNS } from "./crdb_task.ts";

const COLUMNS: readonly Column[] = [
  { header: "GUID", value: "guid" },
  { header: "NAME", value: "name" },
  { header: "INSTANCES", value: (row) => (Array.isArray(row.instances) ? row.instances.length : undefined) },
  sizeColumn("MEMORY", "default_db_config.memory_size"),
];

/** A crdb's guid, checked before any request: hexadecimal digits and dashes. */
const GUID: Arg<string> = {
  ...arg.string("guid", "the active-active database's guid"),
  parse: (input) => {
    if (!/^[0-9A-Fa-f]{8}(-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}$/.test(input)) {
      throw new StoreCtlError("usage", `must be a guid such as 6f1c2a52-0000-4000-8000-000000000001; got '${input}'`, {
        tips: ["See the guids with: ctl enterprise crdb list"],
      });
    }
    return input;
  },
};

const list = command({
  summary: "list active-active databases",
  output: { columns: COLUMNS, empty: "No active-active databases" },
  examples: ["ctl enterprise crdb list"],
  async run(_input, f) {
    return await listCrdbs(await f.enterprise());
  },
});

const get = command({
  summary: "show one active-active database",
  args: [GUID],
  output: { columns: COLUMNS },
  examples: ["ctl enterprise crdb get 6f1c2a52-0000-4000-8000-000000000001 -o yaml"],
  async run({ args: [guid] }, f) {
    return await one(getCrdb(await f.enterprise(), guid), "ctl enterprise crdb list");
  },
});

const create = command({
  summary: "start creating an active-active database",
  description: `Start creating an active-active database and print its task (follow it with
ctl enterprise crdb-task list). --name is required (or "name" in -d); --memory-size sets
default_db_config.memory_size; the instances and other fields come from -d.`,
  flags: {
    name: flag.string("database name", { placeholder: "name" }),
    memorySize: sizeFlag("memory limit of each instance"),
    data: DATA_FLAG,
  },
  output: { columns: TASK_COLUMNS },
  examples: [
    "ctl enterprise crdb create --name sessions --memory-size 1GiB -d @instances.json",
  ],
  async run({ flags }, f) {
    const body = await requestBody(f, flags.data, { name: flags.name });
    requireFields(body, { name: "--name" });
    if (flags.memorySize !== undefined) {
      const config = body.default_db_config;
      body.default_db_config = {
        ...(config !== null && typeof config === "object" ? config : {}),
        memory_size: flags.memorySize,
      };
    }
    return await createCrdb(await f.enterprise(), body as { name: string });
  },
});

/** `ctl enterprise crdb …`: active-active databases. */
export default group("manage active-active databases", { list, get, create });
