/**
 * A2A's HTTP+JSON binding under `/a2a/rest`: `POST /message:send`, `POST /message:stream`,
 * `GET /tasks`, `GET /tasks/{id}`, `POST /tasks/{id}:cancel`, `POST /tasks/{id}:subscribe`, and
 * the push notification configs under `/tasks/{id}/pushNotificationConfigs`. Errors are
 * `google.rpc.Status` bodies; streams are Server-Sent Events of stream responses.
 *
 * @module
 */
import type { Context } from "hono";
import { requireScope } from "../auth/principal.ts";
import type { Scope } from "../auth/scopes.ts";
import { Draining, UnsupportedMediaType } from "../errors.ts";
import type { createEventStreams } from "../sse.ts";
import { A2AError, checkVersion, drainingRestError, restError } from "./errors.ts";
import type { CallContext } from "./call.ts";
import type { TaskStream } from "./methods.ts";
import { resumedAfter, sseResponse } from "./stream.ts";
import type { Json } from "./wire.ts";

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/;

/** What a handler does with a request's params. */
export type RestCall =
  | { readonly unary: (params: unknown, ctx: CallContext) => Promise<Json | null> }
  | {
    readonly streaming: (
      params: unknown,
      ctx: CallContext,
      lastEventId?: number,
    ) => Promise<TaskStream>;
  };

/** Builds HTTP+JSON handlers over the same calls as the JSON-RPC binding. */
export function restHandlers(
  streams: ReturnType<typeof createEventStreams>,
  contextOf: (c: Context) => CallContext,
) {
  /** A handler answering `call` with params from `paramsOf`; `scope`: the call's, where the route admits either. */
  return (call: RestCall, paramsOf: (c: Context, body: Json) => unknown, scope?: Scope) =>
  async (c: Context): Promise<Response> => {
    if (scope) requireScope(c, scope, `${c.req.method} ${c.req.path}`);
    let ctx: CallContext | undefined;
    try {
      checkVersion(c.req.header("a2a-version"));
      const body = await bodyOf(c);
      ctx = contextOf(c);
      const params = paramsOf(c, body);
      if ("unary" in call) {
        const result = await call.unary(params, ctx);
        ctx.end();
        return result === null ? c.body(null, 204) : c.json(result, 200);
      }
      const stream = await call.streaming(params, ctx, resumedAfter(c, streams));
      ctx.end(); // the stream follows on its own signal
      return sseResponse(streams, ctx.scope.store.events, stream, (json) => json);
    } catch (error) {
      ctx?.end();
      if (error instanceof Draining) return c.json(drainingRestError(error), 503, error.headers);
      if (!(error instanceof A2AError)) throw error;
      const { http, body } = restError(error);
      return c.json(body, http);
    }
  };
}

/** The JSON body of a POST, `{}` for none; another type is the service's 415, bad JSON an A2A error. */
async function bodyOf(c: Context): Promise<Json> {
  if (c.req.method !== "POST") return {};
  const text = await c.req.text();
  if (text.trim() === "") return {};
  const type = c.req.header("content-type")?.split(";")[0].trim().toLowerCase() ?? "";
  if (!JSON_TYPE.test(type)) throw new UnsupportedMediaType("An A2A request body is JSON: send application/json");
  try {
    const body = JSON.parse(text);
    if (typeof body === "object" && body !== null && !Array.isArray(body)) return body;
  } catch { /* said below */ }
  throw new A2AError("INVALID_PARAMS", "The body must be a JSON object");
}
