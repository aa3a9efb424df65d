/**
 * What a request works with: its caller's tenant's view of the store (`Store.forTenant`), with
 * that view's task runner and search index. Running open (no tokens) every request has the
 * store's own scope, today's data.
 *
 * @module
 */
import type { Context } from "hono";
import type { Store } from "../lib/store/mod.ts";
import type { TaskRunner } from "../lib/tasks/mod.ts";
import type { SearchIndex } from "../lib/pipelines/mod.ts";

/** One tenant's store view, runner and search index (made on first use where not given). */
export interface Scope {
  readonly store: Store;
  readonly runner: () => TaskRunner;
  readonly search: () => SearchIndex;
}

/** The scope of a request. */
export type ScopeOf = (c: Context) => Scope;
