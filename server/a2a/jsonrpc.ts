/**
 * A2A's JSON-RPC binding: one `POST` endpoint, a method per call. A request that is not JSON-RPC
 * gets JSON-RPC's own error (parse error, invalid request, method not found), an A2A error its
 * code; streaming methods answer Server-Sent Events whose data are JSON-RPC responses.
 *
 * @module
 */
import type { Context } from "hono";
import { prereadBody } from "../../lib/runtime/mod.ts";
import { requireScope } from "../auth/principal.ts";
import { Draining, UnsupportedMediaType } from "../errors.ts";
import type { createEventStreams } from "../sse.ts";
import { A2AError, checkVersion, drainingRpcError, JSON_RPC, jsonRpcError } from "./errors.ts";
import type { CallContext } from "./call.ts";
import { methods, type TaskStream } from "./methods.ts";
import { resumedAfter, sseResponse } from "./stream.ts";
import type { Json } from "./wire.ts";

type Id = string | number | null;
type Unary = (params: unknown, ctx: CallContext) => Promise<Json | null>;
type Streaming = (params: unknown, ctx: CallContext, lastEventId?: number) => Promise<TaskStream>;

/** Each method, whether it changes anything (needs `tasks:write`; else `tasks:read`), and whether it streams. */
const METHODS: Readonly<Record<string, { write: boolean; unary?: Unary; streaming?: Streaming }>> = {
  SendMessage: { write: true, unary: methods.sendMessage },
  SendStreamingMessage: { write: true, streaming: methods.sendStreamingMessage },
  GetTask: { write: false, unary: methods.getTask },
  ListTasks: { write: false, unary: methods.listTasks },
  CancelTask: { write: true, unary: methods.cancelTask },
  SubscribeToTask: { write: false, streaming: methods.subscribeToTask },
  CreateTaskPushNotificationConfig: { write: true, unary: methods.createPushConfig },
  GetTaskPushNotificationConfig: { write: false, unary: methods.getPushConfig },
  ListTaskPushNotificationConfigs: { write: false, unary: methods.listPushConfigs },
  DeleteTaskPushNotificationConfig: { write: true, unary: methods.deletePushConfig },
  GetExtendedAgentCard: { write: false, unary: methods.extendedAgentCard },
};

const reply = (c: Context, id: Id, body: { result: unknown } | { error: unknown }) =>
  c.json({ jsonrpc: "2.0", id, ...body }, 200);
const failure = (c: Context, id: Id, code: number, message: string) => reply(c, id, { error: { code, message } });

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/;

/** The `POST /a2a/jsonrpc` handler; `contextOf` makes a call's context. */
export function jsonRpcHandler(
  streams: ReturnType<typeof createEventStreams>,
  contextOf: (c: Context) => CallContext,
) {
  return async (c: Context): Promise<Response> => {
    const type = c.req.header("content-type")?.split(";")[0].trim().toLowerCase() ?? "";
    if (!JSON_TYPE.test(type)) throw new UnsupportedMediaType("A JSON-RPC request is JSON: send application/json");
    let request: unknown;
    try {
      request = JSON.parse(prereadBody(c.req.raw) ?? await c.req.text());
    } catch (error) {
      return failure(c, null, JSON_RPC.PARSE_ERROR, `The body is not JSON: ${(error as Error).message}`);
    }
    if (Array.isArray(request)) {
      return failure(c, null, JSON_RPC.INVALID_REQUEST, "Batches are not supported: send one request at a time");
    }
    const { jsonrpc, method, params, id } = (request ?? {}) as Record<string, unknown>;
    const validId = id === undefined || id === null || typeof id === "string" || Number.isInteger(id);
    const replyId = (validId ? id ?? null : null) as Id;
    if (typeof request !== "object" || request === null || jsonrpc !== "2.0" || !validId) {
      return failure(
        c,
        replyId,
        JSON_RPC.INVALID_REQUEST,
        'Not a JSON-RPC 2.0 request: it needs jsonrpc "2.0", a method and an id',
      );
    }
    if (typeof method !== "string") return failure(c, replyId, JSON_RPC.INVALID_REQUEST, "method must be a string");
    const entry = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
    if (!entry) {
      return failure(
        c,
        replyId,
        JSON_RPC.METHOD_NOT_FOUND,
        `Unknown method '${method}'; A2A 1.0 methods: ${Object.keys(METHODS).join(", ")}`,
      );
    }
    if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) {
      return reply(c, replyId, { error: jsonRpcError(new A2AError("INVALID_PARAMS", "params must be an object")) });
    }
    requireScope(c, entry.write ? "tasks:write" : "tasks:read", `the A2A method ${method}`);
    let ctx: CallContext | undefined;
    try {
      checkVersion(c.req.header("a2a-version"));
      ctx = contextOf(c);
      if (entry.unary) {
        const result = await entry.unary(params, ctx);
        ctx.end();
        return reply(c, replyId, { result });
      }
      const stream = await entry.streaming!(params, ctx, resumedAfter(c, streams));
      ctx.end(); // the stream follows on its own signal
      const envelope = `{"jsonrpc":"2.0","id":${JSON.stringify(replyId)},"result":`;
      return sseResponse(streams, ctx.scope.store.events, stream, (json) => `${envelope}${json}}`);
    } catch (error) {
      ctx?.end();
      if (error instanceof A2AError) return reply(c, replyId, { error: jsonRpcError(error) });
      if (error instanceof Draining) {
        return c.json({ jsonrpc: "2.0", id: replyId, error: drainingRpcError(error) }, 503, error.headers);
      }
      throw error;
    }
  };
}
