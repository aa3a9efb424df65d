import { getTask, listTasks } from "../../../lib/cloud/mod.ts";
import { StoreCtlError } from "../../../lib/errors/mod.ts";
import { type Arg, arg, flag } from "../../framework/params.ts";
import { command, group, ResultWithOutput } from "../../framework/spec.ts";
import { LIMIT_FLAG } from "./common.ts";
import { WAIT_LIMIT_FLAGS } from "../../framework/waiting.ts";
import { duration, historyOf, TASK_COLUMNS, TASK_LIST_TIP, waitFor } from "./wait.ts";

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

/** Tasks `--recent` shows: those updated within a day. */
const RECENT_MS = 24 * 3_600_000;

const list = command({
  summary: "list the account's recent tasks",
  description: `List the account's tasks. --recent keeps those updated within the last 24 hours, newest first,
with how long ago each changed and how long tasks of its command type usually take on this
machine (the median of the last runs that ctl waited for; none yet: -).`,
  flags: {
    limit: LIMIT_FLAG,
    recent: flag.boolean("only tasks updated in the last 24 h, newest first, with their age and usual duration"),
  },
  output: { columns: TASK_COLUMNS, empty: "No tasks" },
  examples: [
    "ctl cloud task list --limit 10",
    "ctl cloud task list --recent",
    "ctl cloud task list -q \"[?status=='processing-error'].taskId\"",
  ],
  async run({ flags }, f) {
    const tasks = await listTasks(await f.cloud(), { limit: flags.limit });
    if (!flags.recent) return tasks;
    const now = f.ctx.now();
    const history = historyOf(f);
    const recent = tasks
      .filter((task) => task.timestamp !== undefined && now - Date.parse(task.timestamp) <= RECENT_MS)
      .sort((a, b) => Date.parse(b.timestamp!) - Date.parse(a.timestamp!));
    const rows = await Promise.all(recent.map(async (task) => {
      const usually = task.commandType ? await history.estimate(task.commandType) : undefined;
      return { ...task, age_seconds: Math.round((now - Date.parse(task.timestamp!)) / 1000), usually_seconds: usually };
    }));
    return new ResultWithOutput(rows, {
      columns: [
        ...TASK_COLUMNS.slice(0, 3),
        { header: "UPDATED", value: (row) => `${duration(Number(row.age_seconds))} ago` },
        {
          header: "USUALLY",
          value: (row) => row.usually_seconds === undefined ? "-" : duration(Number(row.usually_seconds)),
        },
        ...TASK_COLUMNS.slice(3),
      ],
      empty: "No task changed in the last 24 hours",
    });
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

const watch = command({
  summary: "follow a task, a line per change, then show it",
  description: `Follow a task until it finishes, then show it, like wait; and say each change of its state as
it happens: on a terminal in the spinner, elsewhere (a CI log) as a line on stderr with the time
waited and how long tasks of its kind usually take on this machine. Exit codes as wait.`,
  args: [TASK_ID],
  flags: WAIT_LIMIT_FLAGS,
  output: { columns: TASK_COLUMNS },
  examples: ["ctl cloud task watch 3f2a9c1e-5d4b-4a8e-9c71-0b6d2e4f8a13"],
  async run({ args: [taskId], flags }, f) {
    if (f.ctx.stderr.isTTY) return await waitFor(f, taskId, flags, false);
    const started = f.ctx.now();
    const said = (line: string) => f.ctx.stderr.write(`${line} (${duration((f.ctx.now() - started) / 1000)} waited)\n`);
    return await waitFor({ ...f, ctx: { ...f.ctx, progress: said } }, taskId, flags, false);
  },
});

/** `ctl cloud task …`: the asynchronous operations of the cloud API. */
export default group("follow the cloud API's asynchronous operations", { list, get, wait, watch });
