/**
 * An app with the test tokens of `auth_tokens.ts` configured, and a `call()` that leaves any
 * stream it opens at once, for the access-control tests.
 *
 * @module
 */
import type { Store } from "../lib/store/mod.ts";
import { createTokenSet, parseTokens } from "../server/auth/tokens.ts";
import type { TestTokens } from "./auth_tokens.ts";
import { testApp } from "./service.ts";

/** The app over `store` (closed on dispose), with `tokens`. */
export function authApp(store: Store, tokens: TestTokens) {
  const served = testApp({ store, tokens: createTokenSet(parseTokens(tokens.file, "test")) });
  const app = served.app;
  const call = async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) => {
    const res = await app.request(path, {
      method,
      headers: { ...(body !== undefined && { "content-type": "application/json" }), ...headers },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    // A stream that opened is left at once: only its status counts here.
    const text = res.headers.get("content-type")?.startsWith("text/event-stream")
      ? (await res.body?.cancel(), "")
      : await res.text();
    const isJson = /json/.test(res.headers.get("content-type") ?? "");
    return { status: res.status, res, text, body: text && isJson ? JSON.parse(text) : null };
  };
  return {
    app,
    call,
    [Symbol.asyncDispose]: () => served.service.close(),
  };
}
