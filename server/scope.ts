/**
 * What a request works with: its caller's tenant's scope (`Service.scope`: that tenant's view of
 * the store, task runner and search index). Running open (no tokens) every request has the
 * store's own scope.
 *
 * @module
 */
import type { Context } from "hono";
import type { Scope } from "./service.ts";

export type { Scope } from "./service.ts";

/** The scope of a request. */
export type ScopeOf = (c: Context) => Scope;
