/**
 * Task events: their kinds, the channels they are published on, and an event as stored.
 *
 * @module
 */

/** An event as stored on a channel; `data` always carries `task_id`. */
export interface StoredEvent {
  /** Sequence number within its channel, from 1: usable as `Last-Event-ID`. */
  readonly id: number;
  readonly kind: string;
  readonly data: Record<string, unknown>;
}

/** The channel of one task's events. */
export const taskChannel = (taskId: string): string => `task:${taskId}`;
/** The channel of every task event of a session. */
export const sessionChannel = (sessionId: string): string => `session:${sessionId}`;
/** The channel of every task event. */
export const GLOBAL_CHANNEL = "global";
/** Session and global channels keep about this many recent events; task channels keep all. */
export const SHARED_CHANNEL_CAP = 10_000;

/**
 * The channel of the events webhooks are told of (their kinds: {@link HOOK_KINDS}), written only
 * while a service delivers webhooks; kept like the shared channels (about {@link SHARED_CHANNEL_CAP}).
 */
export const HOOKS_CHANNEL = "hooks";
/** The kinds of event a webhook can ask for: a task's end, and its questions. */
export const HOOK_KINDS: ReadonlySet<string> = new Set(["done", "failed", "cancelled", "input_required"]);

/** The channel on which runners tell each other about cancels, answers and new work. */
export const CONTROL_CHANNEL = "control";

/** Every event kind a stream can carry, for the `events` filter. */
export const EVENT_KINDS = [
  "update",
  "token",
  "done",
  "failed",
  "cancelled",
  "input_required",
  "subtask_spawned",
  "subtask_done",
  "subtask_failed",
  "subtask_input_required",
] as const;

/** The payload of a task event, with its `task_id` first. */
export function eventData(taskId: string, payload: Record<string, unknown> = {}): Record<string, unknown> {
  return { task_id: taskId, ...payload };
}

/** The kinds that end a task's stream: its final states' events. */
export const FINAL_EVENT_KINDS: ReadonlySet<string> = new Set(["done", "failed", "cancelled"]);

/** Kinds of a child's events that its parent's channel also gets, as `subtask_<kind>`. */
export const SUBTASK_KINDS: ReadonlySet<string> = new Set(["spawned", "done", "failed", "input_required"]);
