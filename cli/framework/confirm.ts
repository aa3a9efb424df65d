import { StoreCtlError } from "../../lib/errors/mod.ts";
import type { CliContext } from "../context.ts";

/**
 * Asks `question` before a destructive action. `--yes` answers it; without a terminal to ask on,
 * `--yes` is required (exit 2 naming it); "no" cancels (exit 12) with nothing changed. Ctrl+C (or
 * another terminating signal) while it waits ends the prompt's line and throws the interrupt's
 * reason (`Interrupted`, exit 130, reported by `cli/run.ts` like any other interrupt): a read cut
 * short by the signal is the interrupt, never a "no".
 */
export async function confirmOrStop(ctx: CliContext, question: string, yes: boolean): Promise<void> {
  if (yes) return;
  if (!ctx.stdin.isTTY) {
    throw new StoreCtlError(
      "usage",
      `${question.replace(/\?$/, "")}: confirm with --yes (there is no terminal to ask on)`,
      {
        reason: "confirmation_required",
      },
    );
  }
  ctx.interrupt.throwIfAborted();
  let stop = () => {};
  const interrupted = new Promise<never>((_, reject) => {
    stop = () => reject(ctx.interrupt.reason);
    ctx.interrupt.addEventListener("abort", stop, { once: true });
  });
  let answer: boolean;
  try {
    answer = await Promise.race([ctx.confirm(question), interrupted]);
    ctx.interrupt.throwIfAborted();
  } catch (error) {
    if (ctx.interrupt.aborted) ctx.stderr.write("\n"); // the prompt's line was left open at "[y/N] ^C"
    throw error;
  } finally {
    ctx.interrupt.removeEventListener("abort", stop);
  }
  if (!answer) throw new StoreCtlError("cancelled", "Cancelled; nothing was changed");
}
