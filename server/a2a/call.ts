/**
 * What every A2A method works with: its call's context, its params read by a schema, and the
 * error of a task that is not there.
 *
 * @module
 */
import type { z } from "zod";
import type { DestinationPolicy } from "../../lib/webhooks/mod.ts";
import type { Scope } from "../service.ts";
import { A2AError } from "./errors.ts";

/**
 * The reason a call's signal aborts once it has answered: one object for every call, not an
 * exception made for each (an `abort()` without a reason builds a DOMException with its stack).
 */
export const ANSWERED = new Error("the call has answered");

/** What a method call works with. */
export interface CallContext {
  readonly scope: Scope;
  /** The cascade of a cancel that does not say (`CASCADE_CANCEL`). */
  readonly cascadeCancel: boolean;
  readonly defaultKind: string;
  /** Where push notifications may go (`WEBHOOK_*`); none: the service delivers none. */
  readonly webhooks?: DestinationPolicy;
  /** Aborted by {@link CallContext.end}: the call's waits and followers stop. */
  readonly signal: AbortSignal;
  /** The binding has answered (a stream goes on with its own signal). */
  end(): void;
}

/** Reads `params` with `schema`, or says which field is wrong (`INVALID_PARAMS`). */
export function parseParams<T extends z.ZodType>(schema: T, params: unknown): z.output<T> {
  const parsed = schema.safeParse(params ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${["params", ...i.path].join(".")}: ${i.message}`);
  throw new A2AError("INVALID_PARAMS", problems.join("; "));
}

/** A task that is not there, or is another tenant's: the same answer, so nothing leaks. */
export const notFound = (id: string) =>
  new A2AError("TASK_NOT_FOUND", `No task '${id}'; ListTasks lists the tasks there are`);
