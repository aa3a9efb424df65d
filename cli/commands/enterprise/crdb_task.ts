import { listCrdbTasks } from "../../../lib/enterprise/mod.ts";
import type { Column } from "../../framework/spec.ts";
import { command, group } from "../../framework/spec.ts";

/** The columns of an active-active task. */
export const TASK_COLUMNS: readonly Column[] = [
  { header: "ID", value: "id" },
  { header: "STATUS", value: "status" },
  { header: "CRDB GUID", value: "crdb_guid" },
];

const list = command({
  summary: "list active-active tasks",
  output: { columns: TASK_COLUMNS, empty: "No active-active tasks" },
  examples: ["ctl enterprise crdb-task list", "ctl enterprise crdb-task list -q '[?status!=`finished`]'"],
  async run(_input, f) {
    return await listCrdbTasks(await f.enterprise());
  },
});

/** `ctl enterprise crdb-task list`. */
export default group("list active-active tasks", { list });
