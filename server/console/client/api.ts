/**
 * The service's API as the console calls it: same origin, JSON in and out, problems as errors
 * that say what the service said.
 *
 * @module
 */
import { inputSchemas, type Schema } from "../schema.ts";

/** A failed call: the status and the problem's `detail` (or the status text). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** A 422's invalid fields (`input.steps`), as the problem lists them. */
    readonly errors: readonly { field: string; message: string }[] = [],
  ) {
    super(message);
  }
}

// The token lives in this tab's sessionStorage: gone when the tab closes, never in a URL or a cookie.
const TOKEN_KEY = "storectl.console.token";

/** The token signed in with, or "" (running open, or not signed in). */
export const token = (): string => sessionStorage.getItem(TOKEN_KEY) ?? "";

/** Keeps `value` as the token for this tab ("" signs out). */
export function setToken(value: string): void {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

let unauthorized: () => void = () => {};
/** What to do when the service answers 401 (ask to sign in). */
export function onUnauthorized(handler: () => void): void {
  unauthorized = handler;
}

/** The token's `Authorization` header, when there is a token. */
const auth = (): Record<string, string> => token() ? { authorization: `Bearer ${token()}` } : {};

/** Calls `method path` with an optional JSON body; resolves to the parsed JSON (or null for 204). */
export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const res = await fetch(path, {
    method,
    headers: { ...(body !== undefined && { "content-type": "application/json" }), ...auth(), ...headers },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (res.status === 401) unauthorized();
  if (res.status === 204) return null as T;
  const text = await res.text();
  const json = text ? JSON.parse(text) : null;
  if (!res.ok) {
    throw new ApiError(
      res.status,
      `${method} ${path}: ${res.status} ${json?.detail ?? res.statusText}`,
      Array.isArray(json?.errors) ? json.errors : [],
    );
  }
  return json as T;
}

let schemas: Promise<Record<string, Schema>> | undefined;
/**
 * Each task kind's input schema, read once from the service's `/openapi.json`; `{}` when it cannot
 * be read (the service's 422 then is the only check).
 */
export function kindSchemas(): Promise<Record<string, Schema>> {
  return schemas ??= fetch("/openapi.json").then((res) => res.ok ? res.json() : {}).then(inputSchemas, () => ({}));
}

/** What the service told the page in its shell (`server/console/mod.ts`'s `ConsoleFacts`). */
export interface ServiceFacts {
  readonly tokens: boolean;
  readonly streams: { readonly session: boolean; readonly global: boolean };
}

/** The shell's facts. */
export const serviceFacts = (): ServiceFacts =>
  JSON.parse(document.querySelector('meta[name="storectl-service"]')!.getAttribute("content")!);

/**
 * The URL to open `path` (a stream) with `EventSource`, which cannot send headers: signed in, the
 * URL of a one-use stream ticket (`POST /stream-tickets`); running open, the path itself.
 */
export async function streamUrl(path: string): Promise<string> {
  if (!token()) return path;
  return (await api<{ url: string }>("POST", "/stream-tickets", { url: path })).url;
}

/** A task as `GET /tasks/{id}` shows it. */
export interface Task {
  readonly task_id: string;
  readonly session_id: string;
  readonly kind: string;
  readonly status: string;
  readonly metadata: Record<string, unknown>;
  readonly input?: unknown;
  readonly result?: Record<string, unknown>;
  readonly error?: string;
  readonly prompt?: string;
  readonly parent_id?: string;
  readonly spawn_key?: string;
  readonly updates: readonly { message: string; update_type: string }[];
  readonly created_at: string;
  readonly updated_at: string;
}

/** A row of `GET /tasks`. */
export type Summary =
  & Pick<Task, "task_id" | "session_id" | "kind" | "status" | "metadata" | "created_at" | "updated_at" | "parent_id">
  & { readonly children: number };

/** A page of `GET /tasks`. */
export interface TaskPage {
  readonly tasks: readonly Summary[];
  readonly total: number;
  readonly next_cursor?: string;
}

/** `GET /tasks/{id}/tree`. */
export interface TreeNode {
  readonly task: Task;
  readonly children: readonly TreeNode[];
}

/** Every status a task can have. */
export const STATUSES = ["in_progress", "input_required", "done", "failed", "cancelled"] as const;

/** A fresh idempotency key: one per form fill, so a double submit makes one task. */
export const newKey = (): string => crypto.randomUUID();
