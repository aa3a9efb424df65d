import { z } from "zod";
import { defineTask, TaskCancelledError } from "./define.ts";
import { sleep } from "../time/mod.ts";
import type { TaskFootprint } from "./limits.ts";

/** The input of the built-in `demo` kind (part of the API). */
export const DemoInput = z.object({
  steps: z.number().int().min(0).max(1_000).default(3),
  delay_ms: z.number().int().min(0).max(60_000).default(100),
  tokens: z.array(z.string()).max(100_000).default([]),
  children: z.number().int().min(0).max(10).default(0),
  depth: z.number().int().min(1).max(3).default(1),
  ask: z.string().min(1).optional(),
  fail: z.string().min(1).optional(),
}).strict();

/**
 * The built-in `demo` kind, exercising every feature: it spawns `children` demo children
 * (`child-0`, `child-1`, … with the same `steps`, `delay_ms` and `tokens`, `depth - 1` levels
 * below them), emits `steps` updates `delay_ms` apart, one `token` per element of `tokens`,
 * waits for its children, asks `ask` when reply (the answer goes into `result.input`), fails
 * with `fail` when reply, else answers the tokens joined.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from "../store/mod.ts";
 * import { createTaskRunner } from "./runner.ts";
 * const runner = createTaskRunner({ store: createMemoryStore(), definitions: [demoTask] });
 * await runner.submit({ kind: "demo", input: { steps: 2, tokens: ["a", "b"], children: 2 } });
 * ```
 */
export const demoTask = defineTask({
  kind: "demo",
  input: DemoInput,
  footprint: demoFootprint,
  async run(ctx, input) {
    const cancelled = () => {
      throw new TaskCancelledError(ctx.taskId);
    };
    const below = input.depth - 1;
    const children = Array.from({ length: input.children }, () =>
      ctx.spawn("demo", {
        steps: input.steps,
        delay_ms: input.delay_ms,
        tokens: input.tokens,
        children: below > 0 ? input.children : 0,
        depth: Math.max(1, below),
      }));
    for (let i = 0; i < input.steps; i++) {
      if (i > 0) await sleep(input.delay_ms, ctx.signal).catch(cancelled);
      await ctx.update(`step ${i + 1} of ${input.steps}`);
    }
    for (const token of input.tokens) await ctx.token(token);
    await Promise.race([Promise.all(children), sleep(Infinity, ctx.signal).catch(cancelled)]);
    const answer = input.tokens.join("");
    const reply = input.ask === undefined ? undefined : await ctx.requestInput(input.ask);
    if (input.fail !== undefined) throw new Error(input.fail);
    return { answer, ...(input.ask !== undefined && { input: reply }) };
  },
});

/**
 * What a demo request stores at most: its tree (`children` per task, `depth` levels below the
 * root, whose lowest level spawns none), and on each task's channel its updates, tokens, question
 * and answer, final event, and two `subtask_*` events per child.
 *
 * @example
 * ```ts
 * demoFootprint(DemoInput.parse({ children: 2, tokens: ["a"] })); // { tasks: 3, taskEvents: 9, events: 19 }
 * ```
 */
export function demoFootprint(input: z.output<typeof DemoInput>): TaskFootprint {
  const own = input.steps + input.tokens.length + (input.ask === undefined ? 0 : 2) + 1;
  let tasks = 1;
  let level = 1;
  for (let d = 0; d < input.depth && input.children > 0; d++) tasks += level *= input.children;
  return {
    tasks,
    taskEvents: own + 2 * input.children,
    events: tasks * own + 2 * (tasks - 1),
  };
}
