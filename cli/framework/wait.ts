import { type CloudTask, waitForTask } from "../../lib/cloud/mod.ts";
import { Interrupted } from "../context.ts";
import type { Factory } from "../factory.ts";
import { statusLine } from "./status_line.ts";

const FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";

/** The command that resumes waiting for a task. */
export const resumeCommand = (taskId: string) => `ctl cloud task wait ${taskId}`;

/**
 * Waits for a cloud task with a spinner on a terminal (status and elapsed time on stderr; nothing
 * when piped). Ctrl+C stops waiting, not the task: the error says how to follow it.
 */
export async function waitFor(
  f: Factory,
  taskId: string,
  options: { timeoutSeconds: number; intervalSeconds: number },
): Promise<CloudTask> {
  const client = await f.cloud();
  const line = statusLine(f.ctx.stderr);
  const started = f.ctx.now();
  let status = "waiting";
  let frame = 0;
  const draw = () =>
    line.show(
      `${FRAMES[frame++ % FRAMES.length]} Task ${taskId}: ${status} (${Math.round((f.ctx.now() - started) / 1000)} s)`,
    );
  const timer = f.ctx.stderr.isTTY ? setInterval(draw, 100) : undefined;
  try {
    return await waitForTask(client, taskId, {
      signal: f.ctx.interrupt,
      intervalMs: options.intervalSeconds * 1000,
      timeoutMs: options.timeoutSeconds * 1000,
      onProgress: (task) => (status = task.status),
      onPollError: (error) => (status = `poll failed (${error.status ?? error.code}), retrying`),
    });
  } catch (error) {
    if (error instanceof Interrupted) {
      throw new Interrupted(
        error.signal,
        `task ${taskId} goes on in the cloud; follow it with: ${resumeCommand(taskId)}`,
      );
    }
    throw error;
  } finally {
    clearInterval(timer);
    line.clear();
  }
}
