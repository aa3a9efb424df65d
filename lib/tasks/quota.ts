import type { TaskStore, TaskUsage } from "../store/mod.ts";
import { type TaskFootprint, type TaskLimits, TaskQuotaError } from "./limits.ts";

/** Admits requests within a tenant's quotas. */
export interface QuotaGate {
  /** Resolves when a request of `footprint` fits; throws a {@link TaskQuotaError} naming the quota when not. */
  admit(footprint: TaskFootprint): Promise<void>;
}

/**
 * The quotas of `limits` over the usage of `tasks` (one tenant's view). A reading of the usage
 * serves for `maxAgeMs`, with this process's own admissions added to it, so a busy submitter
 * asks the store about once a second; a refusal is always told by a fresh reading. Several
 * processes may together go past a quota by what they admit within one reading's age.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from "../store/mod.ts";
 * import { DEFAULT_TASK_LIMITS, UNKNOWN_FOOTPRINT } from "./limits.ts";
 * const gate = quotaGate(createMemoryStore().tasks, DEFAULT_TASK_LIMITS);
 * await gate.admit(UNKNOWN_FOOTPRINT);
 * ```
 */
export function quotaGate(
  tasks: TaskStore,
  limits: TaskLimits,
  options: { maxAgeMs?: number; now?: () => number } = {},
): QuotaGate {
  const maxAgeMs = options.maxAgeMs ?? 1_000;
  const now = options.now ?? Date.now;
  let reading: { at: number; usage: { -readonly [K in keyof TaskUsage]: TaskUsage[K] } } | undefined;
  let pending: Promise<TaskUsage> | undefined;
  const read = () =>
    pending ??= tasks.usage().then((usage) => {
      reading = { at: now(), usage: { ...usage } };
      return reading.usage;
    }).finally(() => pending = undefined);

  return {
    async admit(footprint) {
      const fresh = reading !== undefined && now() - reading.at < maxAgeMs;
      let refusal = refused(fresh ? reading!.usage : await read(), footprint, limits);
      if (refusal && fresh) refusal = refused(await read(), footprint, limits);
      if (refusal) throw refusal;
      const usage = reading!.usage;
      usage.live += footprint.tasks;
      usage.stored += footprint.tasks;
      usage.events += footprint.events;
    },
  };
}

const count = (n: number) => n.toLocaleString("en-US");
const FREE =
  "delete finished tasks (DELETE /tasks/{id}), or wait for the retention (TASK_RETENTION_SECONDS) to remove them";

/** The quota a request of `footprint` would go past with `usage`, as the error that says so. */
function refused(usage: TaskUsage, footprint: TaskFootprint, limits: TaskLimits): TaskQuotaError | undefined {
  if (usage.live + footprint.tasks > limits.liveTasks) {
    return new TaskQuotaError(
      `${count(usage.live)} unfinished tasks and this request would add ${count(footprint.tasks)} more; at most ` +
        `${count(limits.liveTasks)} unfinished tasks are allowed per tenant (TENANT_MAX_LIVE_TASKS). ` +
        "Wait for some to finish, or cancel them",
      1,
    );
  }
  if (usage.stored + footprint.tasks > limits.storedTasks) {
    return new TaskQuotaError(
      `${count(usage.stored)} tasks are kept and this request would add ${count(footprint.tasks)} more; at most ` +
        `${count(limits.storedTasks)} tasks are kept per tenant (TENANT_MAX_STORED_TASKS). To make room, ${FREE}`,
      60,
    );
  }
  if (usage.events + footprint.events > limits.storedEvents) {
    return new TaskQuotaError(
      `${count(usage.events)} events are kept and this request may add ${count(footprint.events)} more; at most ` +
        `${count(limits.storedEvents)} events are kept per tenant (TENANT_MAX_STORED_EVENTS). To make room, ${FREE}`,
      60,
    );
  }
  return undefined;
}
