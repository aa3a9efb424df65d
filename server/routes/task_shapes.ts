/**
 * What the task API answers with: the task, its summary in lists, a child and a tree, as
 * OpenAPI schemas, and the records shown through them (`publicTask`, `summary`).
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { TASK_STATUSES, type TaskRecord } from "../../lib/tasks/mod.ts";
import type { ListedTask } from "../../lib/store/mod.ts";

const Update = z.object({ message: z.string(), update_type: z.string() }).openapi("TaskUpdate");
export const Status = z.enum(TASK_STATUSES as [string, ...string[]]).openapi("TaskStatus");
export const Metadata = z.record(z.string(), z.unknown()).openapi({ example: { message: "summarise the report" } });
export const Task = z.object({
  task_id: z.string(),
  session_id: z.string(),
  kind: z.string(),
  status: Status,
  metadata: Metadata,
  input: z.unknown(),
  result: z.record(z.string(), z.unknown()).optional().openapi({ example: { answer: "Hello" } }),
  error: z.string().optional(),
  prompt: z.string().optional().openapi({ description: "The question of an input_required task" }),
  parent_id: z.string().optional(),
  spawn_key: z.string().optional(),
  updates: z.array(Update),
  created_at: z.string(),
  updated_at: z.string(),
}).openapi("Task");
export const Summary = z.object({
  task_id: z.string(),
  session_id: z.string(),
  kind: z.string(),
  status: Status,
  metadata: Metadata,
  created_at: z.string().openapi({ format: "date-time", description: "When the task was created (ISO 8601, UTC)" }),
  updated_at: z.string().openapi({
    format: "date-time",
    description: "When the task last changed: its status, an update, a token, its result",
  }),
  parent_id: z.string().optional().openapi({ description: "The task that spawned it; absent for a top-level task" }),
  children: z.number().int().openapi({ description: "How many sub-tasks it spawned (direct children)" }),
})
  .openapi("TaskSummary");
export const Child = z.object({
  task_id: z.string(),
  spawn_key: z.string(),
  status: Status,
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.string().optional(),
  metadata: Metadata,
}).openapi("TaskChild");
export type TreeNode = { task: z.infer<typeof Task>; children: TreeNode[] };
export const Tree: z.ZodType<TreeNode> = z.lazy(() => z.object({ task: Task, children: z.array(Tree) })).openapi(
  "TaskTree",
  {
    description: "A task and its descendants; each child node has the same shape",
  },
);

/** What a task looks like in responses: the record without internals (creation order, a taken answer, its trace). */
export function publicTask(record: TaskRecord): z.infer<typeof Task> {
  const { seq: _seq, answer: _answer, trace: _trace, updates, ...shown } = record;
  return { ...shown, updates: [...updates] };
}

/** A row of `GET /tasks`. */
export const summary = (r: ListedTask) => ({
  task_id: r.task_id,
  session_id: r.session_id,
  kind: r.kind,
  status: r.status,
  metadata: r.metadata,
  created_at: r.created_at,
  updated_at: r.updated_at,
  ...(r.parent_id !== undefined && { parent_id: r.parent_id }),
  children: r.children,
});
