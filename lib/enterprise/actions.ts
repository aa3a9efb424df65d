import { StoreCtlError } from "../errors/mod.ts";
import { abortableSleep } from "../http/mod.ts";
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

/** How `waitForAction` polls. */
export interface ActionWaitOptions {
  readonly signal?: AbortSignal;
  /** The shortest pause between polls (default 1 s); pauses grow to a quarter of the time waited. */
  readonly intervalMs?: number;
  /** The longest pause (unless `intervalMs` is longer). Default 5 s. */
  readonly maxIntervalMs?: number;
  /** Give up after this long. Default 600 s. */
  readonly timeoutMs?: number;
  /** Called after every poll. */
  readonly onProgress?: (action: Action, elapsedMs: number) => void;
  /** Called when a poll failed for a passing reason (429, 5xx, network) and polling goes on. */
  readonly onPollError?: (error: StoreCtlError, elapsedMs: number) => void;
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

function isPassing(error: unknown): error is StoreCtlError {
  if (!(error instanceof StoreCtlError)) return false;
  return error.code === "rate_limited" || error.code === "network" || error.code === "timeout" ||
    (error.code === "api" && error.status !== undefined && error.status >= 500);
}

/**
 * Polls an action until it ends, with backoff. Resolves with the completed action; a failed or
 * cancelled one is an `api` error (`reason: "action_failed"`, `details.action`), running out of
 * time a `timeout` error (`reason: "action_timeout"`, `details.last`, the last action seen). A
 * poll that fails for a passing reason is tried again at the next interval; a 404 or an
 * authentication error ends the wait at once. An aborted `signal` rejects with its reason.
 */
export async function waitForAction(
  client: EnterpriseClient,
  ref: ActionRef,
  options: ActionWaitOptions = {},
): Promise<Action> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const timeoutMs = options.timeoutMs ?? 600_000;
  const intervalMs = options.intervalMs ?? 1_000;
  const maxIntervalMs = options.maxIntervalMs ?? 5_000;
  const started = now();
  let last: Action | undefined;
  const label = "actionUid" in ref ? `Action ${ref.actionUid}` : `The action at ${ref.path}`;
  const timedOut = () =>
    new StoreCtlError("timeout", `${label} did not finish within ${Math.round(timeoutMs / 1000)} s`, {
      reason: "action_timeout",
      details: { last },
    });
  for (;;) {
    options.signal?.throwIfAborted();
    // A poll that hangs (with its retries) must not carry the wait past its limit.
    const deadline = AbortSignal.timeout(Math.max(1, timeoutMs - (now() - started)));
    try {
      const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
      const action = "actionUid" in ref
        ? await getAction(client, ref.actionUid, signal)
        : await client.get<Action>(ref.path, { signal });
      last = action;
      options.onProgress?.(action, now() - started);
      if (ACTION_SUCCEEDED.includes(action.status)) return action;
      if (ACTION_FAILED.includes(action.status)) {
        const code = action.error_code ? ` (${action.error_code})` : "";
        throw new StoreCtlError("api", `${label} ${action.status}${code}: ${action.error_message ?? "no message"}`, {
          reason: "action_failed",
          details: { action },
        });
      }
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (deadline.aborted) throw timedOut();
      if (!isPassing(error)) throw error;
      options.onPollError?.(error, now() - started);
    }
    const elapsed = now() - started;
    const left = timeoutMs - elapsed;
    if (left <= 0) throw timedOut();
    await sleep(Math.min(Math.max(intervalMs, Math.min(elapsed / 4, maxIntervalMs)), left), options.signal);
  }
}
