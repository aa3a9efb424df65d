import { DEFAULT_LANE } from "../store/mod.ts";
import type { TaskDefinition } from "./define.ts";

/** Root tasks of the default lane one process runs at once, unless configured (`TASK_CONCURRENCY`). */
export const DEFAULT_CONCURRENCY = 256;
/** Root tasks of another lane (`pipelines`, …) one process runs at once, unless configured. */
export const DEFAULT_LANE_CONCURRENCY = 2;

/** Which lane each kind queues in, and how many root tasks of each lane run at once. */
export interface LanePlan {
  laneOf(kind: string): string;
  /** Every lane of the definitions, with its limit; the default lane first. */
  readonly limits: ReadonlyMap<string, number>;
  /** Kinds given a limit that no definition has. */
  readonly unknownKinds: readonly string[];
}

/**
 * Plans the lanes: a kind with a limit of its own (`kindConcurrency`) gets the lane
 * `kind:<kind>`; any other runs in its definition's `lane`, else in the default lane (`tasks`).
 * Each lane has its own queue and limit, so a full lane keeps no other waiting.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { defineTask } from "./define.ts";
 * const echo = defineTask({ kind: "echo", input: z.object({}), run: () => Promise.resolve("") });
 * const plan = planLanes([echo], { concurrency: 64, kindConcurrency: { echo: 4 } });
 * plan.laneOf("echo"); // "kind:echo"
 * plan.limits; // Map { "tasks" => 64, "kind:echo" => 4 }
 * ```
 */
export function planLanes(
  definitions: readonly TaskDefinition[],
  options: {
    readonly concurrency?: number;
    readonly lanes?: Readonly<Record<string, number>>;
    readonly kindConcurrency?: Readonly<Record<string, number>>;
  },
): LanePlan {
  const byKind = new Map(definitions.map((d) => [d.kind, d]));
  const kindLimits = options.kindConcurrency ?? {};
  const laneOf = (kind: string) =>
    kindLimits[kind] !== undefined ? `kind:${kind}` : byKind.get(kind)?.lane ?? DEFAULT_LANE;
  const limits = new Map<string, number>([[DEFAULT_LANE, options.concurrency ?? DEFAULT_CONCURRENCY]]);
  for (const { kind } of definitions) {
    const lane = laneOf(kind);
    if (!limits.has(lane)) limits.set(lane, kindLimits[kind] ?? options.lanes?.[lane] ?? DEFAULT_LANE_CONCURRENCY);
  }
  return { laneOf, limits, unknownKinds: Object.keys(kindLimits).filter((k) => !byKind.has(k)) };
}
