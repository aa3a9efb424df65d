/**
 * The task model, a leaf that imports nothing: task states and records (`model.ts`), events and
 * their channels (`events.ts`), and the store ports the runner works through (`ports.ts`). The
 * stores (`lib/store`) implement the ports, the runner (`lib/tasks`) uses them, and the console
 * reads the event kinds from here without bringing either into its page.
 *
 * @example
 * ```ts
 * import { EVENT_KINDS, FINAL_STATUSES, taskChannel } from "./mod.ts";
 * taskChannel("t1"); // "task:t1"
 * FINAL_STATUSES.has("done"); // true
 * EVENT_KINDS.includes("token"); // true
 * ```
 *
 * @module
 */
export * from "./model.ts";
export * from "./events.ts";
export * from "./ports.ts";
