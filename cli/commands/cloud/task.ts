import { getTask, listTasks } from "../../../lib/cloud/mod.ts";
import { StoreCtlError } from "../../../lib/errors/mod.ts";
import { type Arg, arg } from "../../framework/params.ts";
import { command, group } from "../../framework/spec.ts";
import { LIMIT_FLAG } from "./common.ts";
import { WAIT_LIMIT_FLAGS } from "../../framework/waiting.ts";
import { TASK_COLUMNS, TASK_LIST_TIP, waitFor } from "./wait.ts";

/** A task id, checked before any request: the API's task ids are UUIDs. */
const TASK_ID: Arg<string> = {
  ...arg.string("taskId", "the task's id (a UUID), as printed by the command that started it"),
  parse: (input) => {
    if (!/^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(input)) {
      throw new StoreCtlError(
        "usage",
        `must be a task id, a UUID such as 3f2a9c1e-5d4b-4a8e-9c71-0b6d2e4f8a13; got '${input}'`,
        { tips: [TASK_LIST_TIP] },
      );
    }
    return input;
  },
};

const list = command({
  summary: "list the account's recent tasks",
  flags: { limit: LIMIT_FLAG },
  output: { columns: TASK_COLUMNS, empty: "No tasks" },
  examples: ["ctl cloud task list --limit 10", "ctl cloud task list -q \"[?status=='processing-error'].taskId\""],
  async run({ flags }, f) {
    return await listTasks(await f.cloud(), { limit: flags.limit });
  },
});

const get = command({
  summary: "show one task",
  args: [TASK_ID],
  examples: ["ctl cloud task get 3f2a9c1e-5d4b-4a8e-9c71-0b6d2e4f8a13 -q response.resourceId"],
  output: { columns: TASK_COLUMNS },
  async run({ args: [taskId] }, f) {
    return await getTask(await f.cloud(), taskId);
  },
});

const wait = command({
  summary: "wait for a task to finish and show it",
  description: `Wait for a task to finish and show it. Exits 8 when the task fails (with its error), 11 when
--wait-timeout passes first. An id that is not a UUID fails at once (exit 2). A task created a
moment ago may answer 404 for a while: that is waited out for 10 s, then the task is reported not
found (exit 5). Ctrl+C stops waiting, not the task.`,
  args: [TASK_ID],
  flags: WAIT_LIMIT_FLAGS,
  output: { columns: TASK_COLUMNS },
  examples: ["ctl cloud task wait 3f2a9c1e-5d4b-4a8e-9c71-0b6d2e4f8a13 --wait-timeout 120"],
  async run({ args: [taskId], flags }, f) {
    return await waitFor(f, taskId, flags, false);
  },
});

/** `ctl cloud task …`: the asynchronous operations of the cloud API. */
export default group("follow the cloud API's asynchronous operations", { list, get, wait });
