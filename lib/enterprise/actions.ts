import { StoreCtlError } from "../errors/mod.ts";
import { isTransient, poll, type PollOptions } from "../http/mod.ts";
import type { EnterpriseClient } from "./client.ts";

/**
 * A long-running cluster operation (`GET /v1/actions/{action_uid}`). A real cluster writes
 * `progress` as a string ("45") or, since 7.4.2, as a number; `error_code` and `error_message`
 * come with a failure. Fields beyond these pass through.
 */
export interface Action {
  readonly action_uid?: string;
  readonly name?: string;
  readonly status: string;
  readonly progress?: string | number;
  readonly node_uid?: string;
  readonly error_code?: string;
  readonly error_message?: string;
  readonly [field: string]: unknown;
}

/** `GET /v1/actions`: the running and finished actions, and the state machines. */
export interface ActionList {
  readonly actions?: readonly Action[];
  readonly "state-machines"?: readonly Record<string, unknown>[];
  readonly [field: string]: unknown;
}

/** Statuses that end an action well, and badly. */
export const ACTION_SUCCEEDED: readonly string[] = ["completed"];
export const ACTION_FAILED: readonly string[] = ["failed", "cancelled"];

/** Every action and state machine. */
export function listActions(client: EnterpriseClient): Promise<ActionList> {
  return client.get<ActionList>("/v1/actions");
}

/** One action, by its `action_uid`. */
export function getAction(client: EnterpriseClient, uid: string, signal?: AbortSignal): Promise<Action> {
  return client.get<Action>(`/v1/actions/${encodeURIComponent(uid)}`, { signal });
}

/** An action's progress in percent, whichever way the cluster wrote it, or undefined. */
export function actionProgress(action: Action): number | undefined {
  const value = typeof action.progress === "string" ? Number(action.progress) : action.progress;
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Where to poll an action: `GET /v1/actions/{uid}`, or a path (e.g. `/v1/nodes/3/actions/remove`). */
export type ActionRef = { readonly actionUid: string } | { readonly path: string };

/** How `waitForAction` polls (see `PollOptions`), and what it reports. */
export interface ActionWaitOptions extends PollOptions {
  /** Called after every poll. */
  readonly onProgress?: (action: Action, elapsedMs: number) => void;
  /** Called when a poll failed for a passing reason (429, 5xx, network) and polling goes on. */
  readonly onPollError?: (error: StoreCtlError, elapsedMs: number) => void;
}

/**
 * Polls an action until it ends, with backoff. Resolves with the completed action; a failed or
 * cancelled one is an `api` error (`reason: "action_failed"`, `details.action`), running out of
 * time a `timeout` error (`reason: "action_timeout"`, `details.last`, the last action seen). A
 * poll that fails for a passing reason is tried again at the next interval; a 404 or an
 * authentication error ends the wait at once. An aborted `signal` rejects with its reason.
 */
export function waitForAction(
  client: EnterpriseClient,
  ref: ActionRef,
  options: ActionWaitOptions = {},
): Promise<Action> {
  let last: Action | undefined;
  const label = "actionUid" in ref ? `Action ${ref.actionUid}` : `The action at ${ref.path}`;
  return poll<Action>({
    async read(signal, elapsedMs) {
      const action = "actionUid" in ref
        ? await getAction(client, ref.actionUid, signal)
        : await client.get<Action>(ref.path, { signal });
      last = action;
      options.onProgress?.(action, elapsedMs);
      if (ACTION_SUCCEEDED.includes(action.status)) return action;
      if (ACTION_FAILED.includes(action.status)) {
        const code = action.error_code ? ` (${action.error_code})` : "";
        throw new StoreCtlError("api", `${label} ${action.status}${code}: ${action.error_message ?? "no message"}`, {
          reason: "action_failed",
          details: { action },
        });
      }
      return undefined;
    },
    failed(error, elapsedMs) {
      if (!isTransient(error)) throw error;
      options.onPollError?.(error, elapsedMs);
    },
    timedOut: (timeoutMs) =>
      new StoreCtlError(
        "timeout",
        `${label} did not finish within ${Math.round(timeoutMs / 1000)} s`,
        { reason: "action_timeout", details: { last } },
      ),
  }, options);
}
