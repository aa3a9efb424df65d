import { createRoute, type Hook, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, Env } from "hono";
import type { EventLog, TaskStore } from "../../lib/store/mod.ts";
import {
  EVENT_KINDS,
  FINAL_STATUSES,
  GLOBAL_CHANNEL,
  sessionChannel,
  type StoredEvent,
  taskChannel,
  type TaskStatus,
} from "../../lib/tasks/mod.ts";
import { problem } from "../errors.ts";
import { createEventStreams } from "../sse.ts";

/** A channel scope that can be streamed. */
export type ChannelScope = "TASK" | "SESSION" | "GLOBAL";

/** Streaming settings; the defaults are the issue's. */
export interface StreamConfig {
  /** `STREAMING_ENABLED`: when false every stream answers 404. */
  readonly enabled: boolean;
  /** `CHANNEL_SCOPES`: which of the task, session and global streams exist. */
  readonly scopes: readonly ChannelScope[];
  /** A `: ping` comment after this much silence (at most 15 s, per ARCHITECTURE §6). */
  readonly heartbeatMs: number;
}

export const DEFAULT_STREAMS: StreamConfig = { enabled: true, scopes: ["TASK", "SESSION"], heartbeatMs: 15_000 };

const FINAL_KINDS: ReadonlySet<string> = new Set(["done", "failed", "cancelled"]);

// Followers of one channel share the event objects: each frame is serialised once, not once per subscriber.
const frames = new WeakMap<StoredEvent, string>();
function frame(event: StoredEvent): string {
  let text = frames.get(event);
  if (text === undefined) {
    frames.set(event, text = `id: ${event.id}\nevent: ${event.kind}\ndata: ${JSON.stringify(event.data)}\n\n`);
  }
  return text;
}

const StreamQuery = z.object({
  replay: z.enum(["true", "false"]).transform((v) => v === "true").optional().openapi({
    type: "boolean",
    description: "Send past events first (default true); false sends only new ones",
  }),
  events: z.string().optional().transform((v, ctx) => {
    if (v === undefined || v === "") return undefined;
    const kinds = v.split(",").map((k) => k.trim()).filter(Boolean);
    const unknown = kinds.filter((k) => !(EVENT_KINDS as readonly string[]).includes(k));
    if (unknown.length > 0) {
      ctx.addIssue({
        code: "custom",
        message: `Unknown event kind ${unknown.map((k) => `'${k}'`).join(", ")}; use: ${EVENT_KINDS.join(", ")}`,
      });
      return z.NEVER;
    }
    return new Set(kinds);
  }).openapi({ type: "string", example: "update,token", description: "Comma-separated event kinds to send" }),
});
const LastEventId = z.object({
  "last-event-id": z.string().regex(/^\d+$/, "Last-Event-ID must be an id this stream sent (a whole number)")
    .optional(),
});
const sse = (description: string) => ({
  200: {
    content: {
      "text/event-stream": {
        schema: z.string().openapi({ example: 'id: 1\nevent: token\ndata: {"task_id":"…","message":"Hi"}\n\n' }),
      },
    },
    description,
  },
  404: {
    content: { "application/problem+json": { schema: z.object({}).passthrough() } },
    description: "Streaming or this scope is off, or no such task",
  },
  422: {
    content: { "application/problem+json": { schema: z.object({}).passthrough() } },
    description: "A bad replay, events or Last-Event-ID",
  },
});

/**
 * The SSE streams as a sub-app: `GET /tasks/{task_id}/stream` (scope `TASK`),
 * `GET /sessions/{session_id}/stream` (scope `SESSION`) and `GET /stream` (scope `GLOBAL`).
 * Frames carry `id` (the channel's sequence, usable as `Last-Event-ID`), `event` and `data`;
 * a `: ping` comment keeps idle connections open; a task stream ends after the task's `done`,
 * `failed` or `cancelled`. Errors are problems sent before the stream starts.
 */
export function streamRoutes<E extends Env>(
  events: EventLog,
  tasks: TaskStore,
  config: StreamConfig,
  defaultHook: Hook<unknown, E, string, unknown>,
): OpenAPIHono<E> {
  const app = new OpenAPIHono<E>({ defaultHook });
  const off = (c: Context, scope: ChannelScope) =>
    !config.enabled
      ? problem(c, 404, "Streaming is not enabled on this server (STREAMING_ENABLED=false)")
      : problem(c, 404, `The ${scope} stream is not enabled on this server; add ${scope} to CHANNEL_SCOPES`);
  const available = (scope: ChannelScope) => config.enabled && config.scopes.includes(scope);

  /** Where to start: after Last-Event-ID when resuming, else from the start or from now. */
  const startAfter = async (channel: string, lastEventId: string | undefined, replay: boolean | undefined) =>
    lastEventId !== undefined ? Number(lastEventId) : replay === false ? await events.last(channel) : 0;

  const eventStreams = createEventStreams(config.heartbeatMs);
  const stream = (channel: string, after: number, filter: Set<string> | undefined, endsWithTask?: string) =>
    eventStreams.respond(async (out) => {
      try {
        await out.write("retry: 1000\n\n"); // sends the headers now, and reconnects come back within a second
        for await (const batch of events.followBatches(channel, after, out.signal)) {
          let text = "";
          let ended = false;
          for (const event of batch) {
            if (!filter || filter.has(event.kind)) text += frame(event);
            if (endsWithTask !== undefined && FINAL_KINDS.has(event.kind) && event.data.task_id === endsWithTask) {
              ended = true;
              break;
            }
          }
          if (text) await out.write(text); // one write per batch: a lagging client catches up in few writes
          if (ended) break;
        }
      } catch (error) {
        if (!out.signal.aborted) throw error; // a write to a gone client is no error
      }
    }, { "x-accel-buffering": "no" });

  app.openapi(
    createRoute({
      method: "get",
      path: "/tasks/{task_id}/stream",
      summary: "Stream a task's events (SSE)",
      description:
        "Past events first (unless replay=false), then live ones; ends after the task's done, failed or cancelled. " +
        "Send Last-Event-ID to resume after that event.",
      request: {
        params: z.object({ task_id: z.string().min(1).max(200).openapi({ param: { name: "task_id", in: "path" } }) }),
        query: StreamQuery,
        headers: LastEventId,
      },
      responses: {
        ...sse("text/event-stream of the task's events, with the subtask_* events of its children"),
        204: { description: "The task has finished and nothing follows Last-Event-ID (or replay=false)" },
      },
    }),
    async (c) => {
      if (!available("TASK")) return off(c, "TASK") as never;
      const { task_id } = c.req.valid("param");
      const { replay, events: filter } = c.req.valid("query");
      const record = await tasks.get(task_id);
      if (!record) return problem(c, 404, `No task '${task_id}'; GET /tasks lists the tasks there are`) as never;
      const channel = taskChannel(task_id);
      const after = await startAfter(channel, c.req.valid("header")["last-event-id"], replay);
      // Read after the position: a finished task with nothing after it has nothing more to send.
      const now = replay === false ? await tasks.get(task_id) : record;
      if (now && FINAL_STATUSES.has(now.status as TaskStatus) && after >= await events.last(channel)) {
        return c.body(null, 204) as never; // 204 tells an EventSource not to reconnect
      }
      return stream(channel, after, filter, task_id) as never;
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/sessions/{session_id}/stream",
      summary: "Stream the events of every task of a session (SSE; scope SESSION)",
      request: {
        params: z.object({ session_id: z.string().min(1).openapi({ param: { name: "session_id", in: "path" } }) }),
        query: StreamQuery,
        headers: LastEventId,
      },
      responses: sse("text/event-stream of the session's task events; it does not end by itself"),
    }),
    async (c) => {
      if (!available("SESSION")) return off(c, "SESSION") as never;
      const { session_id } = c.req.valid("param");
      const { replay, events: filter } = c.req.valid("query");
      const channel = sessionChannel(session_id);
      return stream(
        channel,
        await startAfter(channel, c.req.valid("header")["last-event-id"], replay),
        filter,
      ) as never;
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/stream",
      summary: "Stream every task event (SSE; scope GLOBAL)",
      request: { query: StreamQuery, headers: LastEventId },
      responses: sse("text/event-stream of all task events; it does not end by itself"),
    }),
    async (c) => {
      if (!available("GLOBAL")) return off(c, "GLOBAL") as never;
      const { replay, events: filter } = c.req.valid("query");
      const after = await startAfter(GLOBAL_CHANNEL, c.req.valid("header")["last-event-id"], replay);
      return stream(GLOBAL_CHANNEL, after, filter) as never;
    },
  );
  return app;
}
