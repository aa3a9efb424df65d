import { StoreCtlError } from "../../lib/errors/mod.ts";
import type { CliContext } from "../context.ts";

/**
 * Asks `question` before a destructive action. `--yes` answers it; without a terminal to ask on,
 * `--yes` is required (exit 2 naming it); "no" cancels (exit 12) with nothing changed.
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
  if (!(await ctx.confirm(question))) throw new StoreCtlError("cancelled", "Cancelled; nothing was changed");
}
