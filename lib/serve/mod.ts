/**
 * What the service and the emulator share as HTTP servers: a request-body limit for Hono apps
 * and the words for an address that cannot be listened on.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { bodyLimit } from "./mod.ts";
 * const app = new Hono();
 * app.use("*", bodyLimit(1024 * 1024, (c) => c.json({ status: 413 }, 413)));
 * ```
 *
 * @module
 */
export { bodyLimit, withBody } from "./body_limit.ts";
export { listenFailure, type ListenTarget } from "./listen_error.ts";
