import type { MessagePortLike, WorkerScript } from "../runtime/mod.ts";
import { createBm25Engine } from "./bm25.ts";
import { createMiniSearchEngine, type EngineName, type IndexedChunk, type SearchEngine } from "./engine.ts";

export type { MessagePortLike };

/** A ranked chunk id, as an engine answers. */
export type RankedId = { id: string; score: number };

/** An engine whose operations are answered later: one in another thread, or a local one wrapped. */
export interface AsyncEngine {
  add(chunks: readonly IndexedChunk[]): Promise<void>;
  remove(ids: readonly string[]): Promise<void>;
  search(query: string, k: number): Promise<RankedId[]>;
  /** Starts over empty (after the store was cleared). */
  reset(): Promise<void>;
  close(): void;
}

type Operation =
  | { op: "engine"; name: EngineName }
  | { op: "add"; chunks: readonly IndexedChunk[] }
  | { op: "remove"; ids: readonly string[] }
  | { op: "search"; query: string; k: number }
  | { op: "reset" };
type Request = Operation & { id: number };
type Reply = { id: number; results?: RankedId[]; error?: string };

/** `make()`'s engine behind the async interface, in this thread. */
export function localEngine(make: () => SearchEngine): AsyncEngine {
  let engine = make();
  return {
    add: (chunks) => Promise.resolve(engine.add(chunks)),
    remove: (ids) => Promise.resolve(engine.remove(ids)),
    search: (query, k) => Promise.resolve(engine.search(query, k)),
    reset: () => Promise.resolve(void (engine = make())),
    close: () => {},
  };
}

const ENGINES: Record<EngineName, () => SearchEngine> = {
  compact: createBm25Engine,
  minisearch: createMiniSearchEngine,
};

/**
 * The worker's side: an engine (the compact BM25 one until told otherwise) answering the
 * requests that arrive on `port`, one at a time in their order.
 */
export function serveEngine(port: MessagePortLike): void {
  let make = ENGINES.compact;
  let engine = make();
  port.onMessage((message) => {
    const request = message as Request;
    try {
      if (request.op === "engine") {
        make = ENGINES[request.name] ?? ENGINES.compact;
        engine = make();
      } else if (request.op === "add") engine.add(request.chunks);
      else if (request.op === "remove") engine.remove(request.ids);
      else if (request.op === "reset") engine = make();
      const results = request.op === "search" ? engine.search(request.query, request.k) : undefined;
      port.postMessage({ id: request.id, results } satisfies Reply);
    } catch (error) {
      port.postMessage({ id: request.id, error: String((error as Error)?.message ?? error) } satisfies Reply);
    }
  });
}

/** The search worker's script (`search_worker.ts`), for `Runtime.startWorker`. */
export const SEARCH_WORKER: WorkerScript = {
  module: new URL("./search_worker.ts", import.meta.url),
  bundled: "search_worker.js",
};

/**
 * The engine `name` served on the other end of `port` (a worker running `serveEngine`): indexing
 * and searching run on another core, beside the requests of this one and apart from other
 * indexes' workers (one search index's slow query holds only that index's). Each call resolves
 * when the worker has done it, so a caller that awaits adds keeps at most one batch in flight.
 *
 * @example
 * ```ts
 * declare const port: MessagePortLike; // e.g. runtime.startWorker(SEARCH_WORKER)
 * const engine = remoteEngine(port);
 * await engine.add([{ id: "c1", title: "Redis", text: "Streams keep order." }]);
 * await engine.search("stream", 5); // [{ id: "c1", score: … }]
 * ```
 */
export function remoteEngine(port: MessagePortLike, name: EngineName = "compact"): AsyncEngine {
  let next = 0;
  const pending = new Map<number, { resolve(results?: RankedId[]): void; reject(error: Error): void }>();
  port.onMessage((message) => {
    const reply = message as Reply;
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.error !== undefined) waiter?.reject(new Error(`The search worker failed: ${reply.error}`));
    else waiter?.resolve(reply.results);
  });
  const call = (operation: Operation) =>
    new Promise<RankedId[] | undefined>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      port.postMessage({ ...operation, id });
    });
  // The worker takes messages in order: every later call finds the engine chosen. A failure shows on them.
  if (name !== "compact") call({ op: "engine", name }).catch(() => {});
  return {
    add: async (chunks) => void await call({ op: "add", chunks }),
    remove: async (ids) => void await call({ op: "remove", ids }),
    search: async (query, k) => (await call({ op: "search", query, k })) ?? [],
    reset: async () => void await call({ op: "reset" }),
    close() {
      port.close();
      for (const waiter of pending.values()) waiter.reject(new Error("The search worker was closed"));
      pending.clear();
    },
  };
}
