import type { MiddlewareHandler } from "hono";
import { withBody } from "../lib/serve/mod.ts";
import { prereadBody } from "../lib/runtime/mod.ts";
import { InvalidInput } from "./errors.ts";
import { loneSurrogateInJson } from "./well_formed.ts";

/** The deepest nesting of arrays and objects a JSON request body may have. */
export const MAX_JSON_DEPTH = 100;

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/;
/** Types an empty body commonly comes with (`curl -d ''`, `fetch(url, {body: ""})`), besides none at all. */
const EMPTY_AS = new Set(["", "text/plain", "application/x-www-form-urlencoded"]);

/**
 * Prepares request bodies for the JSON routes, before any route sees them:
 *
 * - an empty body (or only whitespace) is no body, whether its type is JSON, none, `text/plain` or
 *   a form: "no options" where the body is optional, the missing fields' 422 where it is required;
 * - any other body must say it is JSON (`Content-Type: application/json`): the JSON routes answer
 *   415 to one without a type, as `text/plain` or as a form, even when it parses as JSON. Those
 *   are the types a page of another site can send without asking first (and `curl -d` sends the
 *   form type);
 * - JSON nested deeper than `maxDepth` is a 422 (`InvalidInput`) — deep values overflow the
 *   stack of `structuredClone` and `JSON.stringify` further on, after state has changed;
 * - a string or key with a lone UTF-16 surrogate is a 422 naming the field (`server/well_formed.ts`).
 *
 * Bodies that are not JSON pass untouched: the JSON routes refuse them with 415.
 */
export function jsonBody(maxDepth = MAX_JSON_DEPTH): MiddlewareHandler {
  return async (c, next) => {
    const request = c.req.raw;
    // A small body the server has read already: every read of it (Hono's text() and json()) takes that text.
    const preread = prereadBody(request);
    // (Hono keeps the promise of each read there, whatever its type says.)
    if (preread !== undefined) (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(preread);
    if (request.method === "GET" || request.method === "HEAD" || !request.body) return await next();
    const type = request.headers.get("content-type")?.split(";")[0].trim().toLowerCase() ?? "";
    const json = JSON_TYPE.test(type);
    if (!json && !EMPTY_AS.has(type)) return await next();
    const text = preread ?? await c.req.text();
    if (text.trim() === "") {
      const headers = new Headers(request.headers);
      headers.delete("content-type");
      headers.delete("content-length");
      c.req.raw = withBody(request, null, headers);
      return await next();
    }
    if (!json) return await next(); // not JSON by its type: the route says 415, naming the type to send
    if (deeperThan(text, maxDepth)) {
      const message = `JSON nested deeper than ${maxDepth} levels; flatten the data`;
      throw new InvalidInput(message, [{ field: "(body)", message }]);
    }
    const lone = loneSurrogateInJson(text);
    if (lone) throw lone;
    return await next();
  };
}

/** Whether arrays and objects in JSON `text` nest deeper than `limit` (brackets inside strings do not count). */
export function deeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) { // a string: skip to its closing quote
      for (i++; i < text.length; i++) {
        const inner = text.charCodeAt(i);
        if (inner === 0x5c) i++;
        else if (inner === 0x22) break;
      }
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}
