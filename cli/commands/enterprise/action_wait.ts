import {
  type Action,
  actionProgress,
  type ActionRef,
  type EnterpriseClient,
  waitForAction,
} from "../../../lib/enterprise/mod.ts";
import { StoreCtlError } from "../../../lib/errors/mod.ts";
import { Interrupted } from "../../context.ts";
import type { Factory } from "../../factory.ts";
import { pollTrouble, spinner, waitLimits } from "../../framework/waiting.ts";

/** The command that follows an action. */
export function followCommand(ref: ActionRef): string {
  return "actionUid" in ref ? `ctl enterprise action wait ${ref.actionUid}` : `ctl api enterprise get ${ref.path}`;
}

/** An action's status with its progress: `running, 45%`. */
export function describeAction(action: Action | undefined): string {
  if (!action) return "not yet seen";
  const progress = actionProgress(action);
  return progress === undefined ? action.status : `${action.status}, ${Math.round(progress)}%`;
}

/** How an action is named in what the user reads. */
export interface ActionWording {
  /** In the status line and a failure: "Removing node 3". */
  readonly doing: string;
  /** In a timeout or an interruption: "the removal of node 3". */
  readonly subject: string;
}

/**
 * Waits for an enterprise action with a status line on a terminal (status, progress, elapsed
 * time; nothing when stderr is piped). A failure is exit 8 with the cluster's error, the time
 * limit exit 11 with how to follow the action; Ctrl+C stops waiting, not the action.
 */
export async function followAction(
  f: Factory,
  client: EnterpriseClient,
  ref: ActionRef,
  wording: ActionWording,
  flags: { waitTimeout: number; waitInterval: number },
): Promise<Action> {
  const shown = spinner(f.ctx, wording.doing);
  const follow = followCommand(ref);
  try {
    return await waitForAction(client, ref, {
      ...waitLimits(flags),
      signal: f.ctx.interrupt,
      now: f.ctx.now,
      onProgress: (action) => shown.state(describeAction(action)),
      onPollError: (error) => shown.state(pollTrouble(error)),
    });
  } catch (error) {
    if (error instanceof Interrupted) {
      throw new Interrupted(error.signal, `${wording.subject} goes on in the cluster; follow it with: ${follow}`);
    }
    if (error instanceof StoreCtlError && error.reason === "action_timeout") {
      const last = error.details.last as Action | undefined;
      const subject = wording.subject[0].toUpperCase() + wording.subject.slice(1);
      throw new StoreCtlError(
        "timeout",
        `${subject} did not finish within ${flags.waitTimeout} s (last status: ${describeAction(last)})`,
        {
          reason: "action_timeout",
          details: error.details,
          tips: [`It goes on in the cluster; follow it with: ${follow}`],
        },
      );
    }
    if (error instanceof StoreCtlError && error.reason === "action_failed") {
      const action = error.details.action as Action;
      const code = action.error_code ? ` (${action.error_code})` : "";
      throw new StoreCtlError(
        "api",
        `${wording.doing} ${action.status === "cancelled" ? "was cancelled" : "failed"}${code}: ${
          action.error_message ?? "the cluster gave no message"
        }`,
        { reason: "action_failed", details: error.details },
      );
    }
    throw error;
  } finally {
    shown.stop();
  }
}
