/**
 * `Idempotency-Key` for the routes that create tasks (`POST /tasks` and the pipeline submits):
 * a retried request answers the task its first try created instead of making a second one.
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import type { IdempotencyStore, TaskRecord, TaskStore } from "../../lib/store/mod.ts";
import { Conflict } from "../errors.ts";
import { digestHex } from "../../lib/text/mod.ts";

/** The longest `Idempotency-Key`, in characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** How long a key is remembered unless configured (`IDEMPOTENCY_TTL_SECONDS`): a day. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 86_400_000;

/** How long a key is held for a request still being handled (it frees up should that request die). */
const PENDING_MS = 60_000;

/** The request headers of a creating route: an optional `Idempotency-Key`. */
export const IdempotencyHeaders = z.object({
  "idempotency-key": z.string().regex(
    new RegExp(`^[\\x21-\\x7e]{1,${MAX_IDEMPOTENCY_KEY_LENGTH}}$`),
    `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters without spaces, e.g. a UUID`,
  ).optional().openapi({
    description: "Send the same key when retrying: the same request answers its first task (200) instead of " +
      "creating another; a different request with the key is a 409",
    example: "0b6f2c1e-6a55-4c1b-9d0b-2f1e8a7d3c44",
  }),
});

/** A task that was created now, or that an earlier request with the same key created. */
export interface Created {
  readonly record: TaskRecord;
  /** True when the key had it already: answer 200 with `Idempotent-Replayed: true`, not 201. */
  readonly replayed: boolean;
}

/** The headers of an answer that created or replayed `record`. */
export const createdHeaders = (created: Created): Record<string, string> => ({
  location: `/tasks/${created.record.task_id}`,
  ...(created.replayed && { "idempotent-replayed": "true" }),
});

/**
 * Creates tasks at most once per `Idempotency-Key` within `ttlMs`. The key is claimed before
 * anything is created (one atomic step in the store, so concurrent requests with one key make
 * one task across processes); the same request later answers the task the key holds, another
 * request is a {@link Conflict}, and a request whose creation fails frees its key.
 *
 * @example
 * ```ts ignore
 * const createOnce = idempotent({ keys: store.idempotency, tasks: store.tasks, ttlMs: 86_400_000 });
 * const { record, replayed } = await createOnce(key, "POST /tasks", body, () => runtime.submit(body));
 * ```
 */
export function idempotent(deps: { keys: IdempotencyStore; tasks: TaskStore; ttlMs: number }) {
  const seconds = Math.round(deps.ttlMs / 1000);
  return async (
    key: string | undefined,
    route: string,
    body: unknown,
    create: () => Promise<TaskRecord>,
  ): Promise<Created> => {
    if (key === undefined) return { record: await create(), replayed: false };
    const fingerprint = await digestHex("SHA-256", `${route}\n${JSON.stringify(body ?? null)}`);
    // Twice at most: a key whose task is gone (deleted, or past its retention) is let go and taken again.
    for (let attempt = 0; attempt < 2; attempt++) {
      const held = await deps.keys.claim(key, fingerprint, Math.min(PENDING_MS, deps.ttlMs));
      if (held === undefined) {
        let record: TaskRecord;
        try {
          record = await create();
        } catch (error) {
          await deps.keys.release(key, fingerprint).catch(() => {}); // a refused request holds no key
          throw error;
        }
        // The task exists: should the store fail to note it now, the answer is still the task (the key frees up later).
        await deps.keys.complete(key, fingerprint, record.task_id, deps.ttlMs).catch(() => false);
        return { record, replayed: false };
      }
      if (held.fingerprint !== fingerprint) {
        throw new Conflict(
          `Idempotency-Key '${key}' was used for a different request (another route or body) within the last ` +
            `${seconds} s; send a new key with a new request`,
        );
      }
      if (held.taskId === undefined) {
        throw new Conflict(
          `A request with Idempotency-Key '${key}' is still being handled; retry in a moment`,
          { "retry-after": "1" },
        );
      }
      const record = await deps.tasks.get(held.taskId);
      if (record) return { record, replayed: true };
      await deps.keys.release(key, fingerprint);
    }
    throw new Conflict(`Idempotency-Key '${key}' is being reused concurrently; retry in a moment`, {
      "retry-after": "1",
    });
  };
}
