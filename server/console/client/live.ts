/**
 * Following a stream with an `EventSource`: every named event kind of the service, with the
 * connection's state (open, dropped and reconnecting, ended).
 *
 * @module
 */
import { EVENT_KINDS, FINAL_EVENT_KINDS } from "../../../lib/task_model/mod.ts";
import { streamUrl, token } from "./api.ts";

export { EVENT_KINDS };

/** One event as received: its stream id, kind and data. */
export interface StreamEvent {
  readonly id: number;
  readonly kind: string;
  readonly data: Record<string, unknown>;
}

/** What the connection is doing. */
export type Connection = "connecting" | "live" | "dropped" | "reconnected" | "ended";

/**
 * Opens the stream at `path` and calls `onEvent` once per event id (an id at or below the last
 * one seen is not delivered twice), `onState` on each change of the connection. Returns the
 * close function.
 *
 * Running open, the browser reconnects by itself with `Last-Event-ID`. Signed in, the stream is
 * opened with a ticket that works once, so its own reconnection is refused: then a new ticket
 * opens it again (a task stream replays from the start, and the events already shown are
 * skipped by their ids). Three failed attempts in a row end it; so does the final event of a
 * stream that `ends` (a task's).
 */
export function follow(
  path: string,
  onEvent: (event: StreamEvent) => void,
  onState: (state: Connection, lastId: number) => void,
  options: { readonly ends?: boolean } = {},
): () => void {
  let source: EventSource | undefined;
  let closed = false;
  let lastId = 0;
  let dropped = false;
  let finished = false;
  let failures = 0;
  let timer: number | undefined;
  const retry = () => {
    if (++failures >= 3) return onState("ended", lastId);
    timer = setTimeout(connect, 1000);
  };
  const connect = async () => {
    let url: string;
    try {
      url = await streamUrl(path);
    } catch {
      if (!closed) retry();
      return;
    }
    if (closed) return;
    const ticketed = token() !== "";
    const current = source = new EventSource(url);
    current.onopen = () => {
      failures = 0;
      onState(dropped ? "reconnected" : "live", lastId);
    };
    current.onerror = () => {
      if (current.readyState !== EventSource.CLOSED) {
        dropped = true;
        return onState("dropped", lastId);
      }
      // Open: CLOSED is the service's word (204 after the end, 404 for a task that is gone).
      if (!ticketed || finished) return onState("ended", lastId);
      dropped = true;
      onState("dropped", lastId);
      retry();
    };
    for (const kind of EVENT_KINDS) {
      current.addEventListener(kind, (e) => {
        const message = e as MessageEvent<string>;
        const id = Number(message.lastEventId);
        if (Number.isFinite(id) && id > 0) {
          if (id <= lastId) return;
          lastId = id;
        }
        const data = JSON.parse(message.data);
        // A task stream ends after its task's final event (not a child's copy of one).
        if (options.ends && FINAL_EVENT_KINDS.has(kind) && !data.subtask_id) finished = true;
        onEvent({ id, kind, data });
      });
    }
  };
  onState("connecting", 0);
  void connect();
  return () => {
    closed = true;
    clearTimeout(timer);
    source?.close();
  };
}
