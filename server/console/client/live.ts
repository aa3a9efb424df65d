/**
 * Following a stream with an `EventSource`: every named event kind of the service, with the
 * connection's state (open, dropped and reconnecting, ended).
 *
 * @module
 */

/** Every event kind a stream sends. */
export const EVENT_KINDS = [
  "update",
  "token",
  "done",
  "failed",
  "cancelled",
  "input_required",
  "subtask_spawned",
  "subtask_done",
  "subtask_failed",
  "subtask_input_required",
] as const;

/** One event as received: its stream id, kind and data. */
export interface StreamEvent {
  readonly id: number;
  readonly kind: string;
  readonly data: Record<string, unknown>;
}

/** What the connection is doing. */
export type Connection = "connecting" | "live" | "dropped" | "reconnected" | "ended";

/**
 * Opens `url` and calls `onEvent` once per event id (an id at or below the last one seen is not
 * delivered twice), `onState` on each change of the connection. Returns the close function.
 */
export function follow(
  url: string,
  onEvent: (event: StreamEvent) => void,
  onState: (state: Connection, lastId: number) => void,
): () => void {
  const source = new EventSource(url);
  let lastId = 0;
  let dropped = false;
  onState("connecting", 0);
  source.onopen = () => {
    onState(dropped ? "reconnected" : "live", lastId);
  };
  source.onerror = () => {
    // CLOSED: the service said there is no more (204, or a 404 for a task that is gone).
    if (source.readyState === EventSource.CLOSED) onState("ended", lastId);
    else {
      dropped = true;
      onState("dropped", lastId);
    }
  };
  for (const kind of EVENT_KINDS) {
    source.addEventListener(kind, (e) => {
      const message = e as MessageEvent<string>;
      const id = Number(message.lastEventId);
      if (Number.isFinite(id) && id > 0) {
        if (id <= lastId) return;
        lastId = id;
      }
      onEvent({ id, kind, data: JSON.parse(message.data) });
    });
  }
  return () => source.close();
}
