import { createRoute, type Hook, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Env } from "hono";
import type { EventLog, SharedChannels, Store } from "../../lib/store/mod.ts";
import type { ScopeOf } from "../scope.ts";
import {
  EVENT_KINDS,
  FINAL_STATUSES,
  GLOBAL_CHANNEL,
  sessionChannel,
  taskChannel,
  type TaskStatus,
} from "../../lib/tasks/mod.ts";
import { needs } from "../auth/scopes.ts";
import { NotFound } from "../errors.ts";
import { createEventStreams, type EventStreamOptions } from "../sse.ts";
import { feedStream, streamChecks, type StreamPlan, type StreamState } from "./stream_feed.ts";

/** A channel scope that can be streamed. */
export type ChannelScope = "TASK" | "SESSION" | "GLOBAL";

/** Streaming settings; the defaults are the specification's. */
export interface StreamConfig {
  /** `STREAMING_ENABLED`: when false every stream answers 404. */
  readonly enabled: boolean;
  /** `CHANNEL_SCOPES`: which of the task, session and global streams exist. */
  readonly scopes: readonly ChannelScope[];
  /**
   * `STREAM_HEARTBEAT_MS`: a `: ping` comment after this much silence (at most 15 s, so that
   * proxies that close idle connections after 30 s or more keep a stream); quiet streams also
   * check then that their task and channel still exist.
   */
  readonly heartbeatMs: number;
  /** `STREAM_BUFFER_BYTES`: each stream's outgoing buffer; a client further behind is cut off. */
  readonly bufferBytes: number;
}

export const DEFAULT_STREAMS: StreamConfig = {
  enabled: true,
  scopes: ["TASK", "SESSION"],
  heartbeatMs: 15_000,
  bufferBytes: 128 * 1024,
};

/** Whether `config` serves the `scope` stream. */
export function servesScope(config: StreamConfig, scope: ChannelScope): boolean {
  return config.enabled && config.scopes.includes(scope);
}

/** The shared channels a stream of `config` reads: the only ones worth writing. */
export function sharedChannels(config: StreamConfig): SharedChannels {
  return { session: servesScope(config, "SESSION"), global: servesScope(config, "GLOBAL") };
}

const StreamQuery = z.object({
  replay: z.enum(["true", "false"]).transform((v) => v === "true").optional().openapi({
    type: "boolean",
    description: "Send past events first (default true); false sends only new ones",
  }),
  events: z.string().optional().transform((v, ctx) => {
    if (v === undefined) return undefined;
    const kinds = v.split(",").map((k) => k.trim()).filter(Boolean);
    if (kinds.length === 0) return undefined; // `events=` and `events=,,,` alike: every kind
    const unknown = kinds.filter((k) => !(EVENT_KINDS as readonly string[]).includes(k));
    if (unknown.length > 0) {
      ctx.addIssue({
        code: "custom",
        message: `Unknown event kind ${unknown.map((k) => `'${k}'`).join(", ")}; use: ${EVENT_KINDS.join(", ")}`,
      });
      return z.NEVER;
    }
    return new Set(kinds);
  }).openapi({
    type: "string",
    example: "update,token",
    description: "Comma-separated event kinds to send; empty names are ignored, and none at all sends every kind",
  }),
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
  503: {
    content: { "application/problem+json": { schema: z.object({}).passthrough() } },
    description: "The store does not answer (with Retry-After)",
  },
});

const TASK_STREAM = createRoute({
  method: "get",
  path: "/tasks/{task_id}/stream",
  security: needs("tasks:read"),
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
});

const SESSION_STREAM = createRoute({
  method: "get",
  path: "/sessions/{session_id}/stream",
  security: needs("tasks:read"),
  summary: "Stream the events of every task of a session (SSE; scope SESSION)",
  request: {
    params: z.object({ session_id: z.string().min(1).openapi({ param: { name: "session_id", in: "path" } }) }),
    query: StreamQuery,
    headers: LastEventId,
  },
  responses: sse("text/event-stream of the session's task events; it does not end by itself"),
});

const GLOBAL_STREAM = createRoute({
  method: "get",
  path: "/stream",
  security: needs("tasks:read"),
  summary: "Stream every task event (SSE; scope GLOBAL)",
  request: { query: StreamQuery, headers: LastEventId },
  responses: sse("text/event-stream of all task events; it does not end by itself"),
});

/**
 * The SSE streams as a sub-app: `GET /tasks/{task_id}/stream` (scope `TASK`),
 * `GET /sessions/{session_id}/stream` (scope `SESSION`) and `GET /stream` (scope `GLOBAL`).
 * Frames carry `id` (the channel's sequence, usable as `Last-Event-ID`), `event` and `data`;
 * a `: ping` comment keeps idle connections open; a task stream ends after the task's `done`,
 * `failed` or `cancelled`. Errors are problems sent before the stream starts: each route reads
 * the store first, so a store that does not answer is a 503 (with `Retry-After`), not a stream
 * that breaks.
 */
export function streamRoutes<E extends Env>(
  scopeOf: ScopeOf,
  config: StreamConfig & Pick<EventStreamOptions, "observer">,
  defaultHook: Hook<unknown, E, string, unknown>,
): OpenAPIHono<E> {
  const app = new OpenAPIHono<E>({ defaultHook });
  const off = (scope: ChannelScope) =>
    new NotFound(
      config.enabled
        ? `The ${scope} stream is not enabled on this server; add ${scope} to CHANNEL_SCOPES`
        : "Streaming is not enabled on this server (STREAMING_ENABLED=false)",
    );
  const available = (scope: ChannelScope) => servesScope(config, scope);

  const eventStreams = createEventStreams(config);
  // The checks of quiet streams, once per channel of each tenant's store.
  const checks = new WeakMap<Store, ReturnType<typeof streamChecks>>();
  const checkOf = (store: Store) => {
    let check = checks.get(store);
    if (!check) checks.set(store, check = streamChecks(store.events, store.tasks, config.heartbeatMs / 3));
    return check;
  };
  const stream = (store: Store, plan: StreamPlan) => {
    const state: StreamState = { lastRead: plan.readAfter };
    const check = checkOf(store);
    return eventStreams.respond(
      (out) => feedStream(store.events, out, plan, state),
      { "x-accel-buffering": "no" },
      () => check(plan, state),
      plan.taskId !== undefined ? "task" : plan.channel === GLOBAL_CHANNEL ? "global" : "session",
    );
  };

  /**
   * A session or the global stream: after Last-Event-ID when resuming, else from the start or
   * from now. A Last-Event-ID past the channel's end means the store lost its events (a Redis
   * restarted empty numbers them from 1 again): the stream follows the channel from its start.
   */
  const shared = async (
    events: EventLog,
    channel: string,
    lastEventId: string | undefined,
    replay: boolean | undefined,
  ) => {
    if (lastEventId !== undefined) eventStreams.resumed(channel === GLOBAL_CHANNEL ? "global" : "session");
    const last = await events.last(channel); // before answering: a store that does not answer is a 503
    const after = lastEventId !== undefined ? Number(lastEventId) : replay === false ? last : 0;
    return after > last ? 0 : after;
  };

  app.openapi(
    TASK_STREAM,
    async (c) => {
      if (!available("TASK")) throw off("TASK");
      const { task_id } = c.req.valid("param");
      const { replay, events: filter } = c.req.valid("query");
      const lastEventId = c.req.valid("header")["last-event-id"];
      if (lastEventId !== undefined) eventStreams.resumed("task");
      const channel = taskChannel(task_id);
      const { store } = scopeOf(c);
      // The channel's end before the task's state: a task not final yet ends with an event after it.
      const last = await store.events.last(channel);
      const record = await store.tasks.get(task_id);
      if (!record) throw new NotFound(`No task '${task_id}'; GET /tasks lists the tasks there are`);
      const sendAfter = lastEventId !== undefined ? Number(lastEventId) : replay === false ? last : 0;
      if (FINAL_STATUSES.has(record.status as TaskStatus)) {
        const until = await store.events.last(channel); // its final event is at or below this
        if (sendAfter >= until) return c.body(null, 204); // 204 tells an EventSource not to reconnect
        const trace = record.trace;
        return stream(store, { channel, sendAfter, readAfter: sendAfter, filter, taskId: task_id, until, trace });
      }
      // Resumed past the channel's end (a client ahead of the store): read from the end, send after its id.
      const readAfter = Math.min(sendAfter, last);
      return stream(store, { channel, sendAfter, readAfter, filter, taskId: task_id, trace: record.trace });
    },
  );

  app.openapi(
    SESSION_STREAM,
    async (c) => {
      if (!available("SESSION")) throw off("SESSION");
      const { session_id } = c.req.valid("param");
      const { replay, events: filter } = c.req.valid("query");
      const channel = sessionChannel(session_id);
      const { store } = scopeOf(c);
      const after = await shared(store.events, channel, c.req.valid("header")["last-event-id"], replay);
      return stream(store, { channel, sendAfter: after, readAfter: after, filter });
    },
  );

  app.openapi(
    GLOBAL_STREAM,
    async (c) => {
      if (!available("GLOBAL")) throw off("GLOBAL");
      const { replay, events: filter } = c.req.valid("query");
      const { store } = scopeOf(c);
      const after = await shared(store.events, GLOBAL_CHANNEL, c.req.valid("header")["last-event-id"], replay);
      return stream(store, { channel: GLOBAL_CHANNEL, sendAfter: after, readAfter: after, filter });
    },
  );

  return app;
}
