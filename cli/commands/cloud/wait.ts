/**
 * Waiting for cloud tasks, as the cloud commands do it: a spinner with the task's state, and
 * `taskCommand`, a command that starts a task and waits for it with `--wait`.
 *
 * @module
 */
import {
  type CloudTask,
  historyFile,
  TASK_FAILED,
  TASK_SUCCEEDED,
  type TaskHistory,
  taskHistory,
  type TaskReference,
  waitForTask,
} from "../../../lib/cloud/mod.ts";
import { StoreCtlError } from "../../../lib/errors/mod.ts";
import { Interrupted } from "../../context.ts";
import type { Factory } from "../../factory.ts";
import type { Arg, Flag } from "../../framework/params.ts";
import { type Column, command, type CommandSpec, type Input, ResultWithOutput } from "../../framework/spec.ts";
import { pollTrouble, spinner, WAIT_FLAGS, waitLimits } from "../../framework/waiting.ts";

/** Table columns of a task. */
export const TASK_COLUMNS: readonly Column[] = [
  { header: "TASK ID", value: "taskId" },
  { header: "STATUS", value: "status" },
  { header: "COMMAND", value: "commandType" },
  { header: "RESOURCE", value: "response.resourceId" },
  {
    header: "DESCRIPTION",
    value: (task) => (task.response as { error?: { description?: string } })?.error?.description ?? task.description,
    role: "text",
  },
];

/** Where to see the ids of tasks. */
export const TASK_LIST_TIP = "ctl cloud task list shows the account's tasks";

/** The command that resumes waiting for a task. */
export const resumeCommand = (taskId: string) => `ctl cloud task wait ${taskId}`;

/**
 * Waits for a cloud task with a spinner on a terminal (the task's state, how long such tasks
 * usually take on this machine, and the time waited, on stderr, redrawn as the state changes;
 * nothing when piped). Ctrl+C stops waiting, not the task: the error says how to follow it.
 * `accepted`: this run started the task and saw the API accept it — then how long it took is
 * kept for the next estimate.
 */
export async function waitFor(
  f: Factory,
  taskId: string,
  flags: { waitTimeout: number; waitInterval: number },
  accepted: boolean,
): Promise<CloudTask> {
  const client = await f.cloud();
  const history = historyOf(f);
  const shown = spinner(f.ctx, `Task ${taskId}`);
  const started = f.ctx.now();
  let usually: Promise<number | undefined> | undefined;
  let estimate = "";
  const progress = (task: CloudTask) => {
    if (task.commandType && !usually) {
      usually = history.estimate(task.commandType).catch(() => undefined);
      usually.then((seconds) => estimate = seconds === undefined ? "" : `, usually ~${duration(seconds)}`);
    }
    const final = TASK_SUCCEEDED.includes(task.status) || TASK_FAILED.includes(task.status);
    shown.state(final ? task.status : `${task.status}${estimate}`);
  };
  try {
    const task = await waitForTask(client, taskId, {
      ...waitLimits(flags),
      accepted,
      signal: f.ctx.interrupt,
      now: f.ctx.now,
      onProgress: progress,
      onPollError: (error) => shown.state(pollTrouble(error)),
    });
    if (accepted && task.commandType) {
      const seconds = (f.ctx.now() - started) / 1000;
      await history.record(task.commandType, seconds, new Date(f.ctx.now())).catch(() => {}); // a cache: never fatal
    }
    return task;
  } catch (error) {
    if (error instanceof Interrupted) {
      throw new Interrupted(
        error.signal,
        `task ${taskId} goes on in the cloud; follow it with: ${resumeCommand(taskId)}`,
      );
    }
    throw error;
  } finally {
    shown.stop();
  }
}

/** This machine's history of task durations. */
export const historyOf = (f: Factory): TaskHistory => taskHistory(f.ctx.fs, historyFile(f.ctx.env, f.ctx.home));

/** Seconds in words: `45 s`, `3 min`, `1 h 5 min`. */
export function duration(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 90 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** A command that starts a cloud task (a create, update or delete). */
export interface TaskCommandSpec<F, A> extends Omit<CommandSpec<F, A>, "kind" | "run"> {
  /** Sends the request; resolves with the task reference the API answered. */
  start(input: Input<F, A>, f: Factory): Promise<TaskReference>;
  /** With `--wait`: what the finished task made, printed instead of the task (e.g. the new database). */
  resolve?(task: CloudTask, f: Factory, input: Input<F, A>): Promise<unknown>;
}

/**
 * Declares a command that starts a cloud task, with `--wait`, `--wait-timeout` and
 * `--wait-interval`. Without `--wait` it prints the task reference (JSON: the command's table is
 * for what the task makes) and, on stderr, the command that waits for it; with `--wait` what
 * `resolve` finds once the task completed, or the finished task.
 */
export function taskCommand<
  const F extends Record<string, Flag<unknown>> = Record<never, Flag<unknown>>,
  const A extends readonly Arg<unknown>[] = [],
>(spec: TaskCommandSpec<F, A>): CommandSpec {
  const { start, resolve, ...rest } = spec;
  return command({
    ...rest,
    flags: { ...spec.flags, ...WAIT_FLAGS } as F & typeof WAIT_FLAGS,
    async run(input, f) {
      const own = input as unknown as Input<F, A>;
      const ref = await start(own, f);
      if (typeof ref?.taskId !== "string") {
        throw new StoreCtlError("api", "The API answered without a task id; see the response with ctl api");
      }
      if (!input.flags.wait) {
        f.ctx.stderr.write(
          `Task ${ref.taskId} is ${ref.status ?? "queued"}; wait for it with: ${resumeCommand(ref.taskId)}\n`,
        );
        return new ResultWithOutput(ref, {});
      }
      const task = await waitFor(f, ref.taskId, input.flags as { waitTimeout: number; waitInterval: number }, true);
      return resolve ? await resolve(task, f, own) : task;
    },
  });
}
