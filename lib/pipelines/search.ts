import { createBm25Engine } from "./bm25.ts";
import { createMiniSearchEngine, type EngineName } from "./engine.ts";
import { type AsyncEngine, localEngine } from "./engine_worker.ts";
import type { DocumentChange, DocumentStore } from "../store/mod.ts";

/** One search result: a chunk, its document, and its BM25 score (higher is better). */
export interface SearchHit {
  chunk_id: string;
  document_id: string;
  title: string;
  source: string;
  text: string;
  score: number;
}

/** Finds the chunks that best match a query. */
export interface Retriever {
  search(query: string, k: number): Promise<SearchHit[]>;
}

/** A process's search index over the store's documents, kept current from the change stream. */
export interface SearchIndex extends Retriever {
  /** Applies every change up to now; `search` calls it first, so a search sees every finished write. */
  sync(): Promise<void>;
  /**
   * Syncs in the background until `close()` (keeps searches after big ingests fast): every
   * `intervalMs` while changes come, waiting twice as long after each look that finds none, up to
   * 8 × `intervalMs`.
   */
  start(intervalMs?: number): void;
  /** The chunks indexed and the last change applied. */
  stats(): { chunks: number; documents: number; last_change: number };
  /** The engine and where it runs, for people: "compact engine in a worker thread". */
  readonly engine: string;
  close(): void;
}

/** Changes read per store call while catching up. */
const CHANGE_BATCH = 2_000;
/** Documents fetched per store call while catching up. */
const DOCUMENT_BATCH = 20;
/**
 * Chunks indexed between two yields to the event loop: indexing is synchronous, and a long
 * catch-up in one go would starve the process's requests and store replies (Redis commands
 * then miss their deadline).
 */
const INDEX_SLICE = 200;
const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * A search index as a derived cache: the store (memory or Redis) holds documents and chunks;
 * each process indexes them with an engine (`engine.ts`: the compact BM25 engine of `bm25.ts`
 * by default, or MiniSearch) and catches up from the store's change stream before each search (and in the background
 * with `start()`), so every process answers the same once a write has finished in any of
 * them. The index keeps only ids and terms; the hits' texts, titles and sources are read
 * from the store. With `worker` (one per index, given the engine's name) the engine runs in
 * that thread: its indexing and searches wait for no other index's.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from "../store/mod.ts";
 * const index = createSearchIndex(createMemoryStore());
 * const hits = await index.search("redis streams", 5);
 * ```
 */
export function createSearchIndex(
  store: { readonly documents: DocumentStore },
  options: { engine?: EngineName; worker?: (engine: EngineName) => AsyncEngine } = {},
): SearchIndex {
  const documents = store.documents;
  const name = options.engine ?? "compact";
  const index = options.worker?.(name) ??
    localEngine(name === "minisearch" ? createMiniSearchEngine : createBm25Engine);
  const engine = `${name === "minisearch" ? "MiniSearch" : "compact engine"} in ${
    options.worker ? "a worker thread" : "the main thread"
  }`;
  /** Per document: the content hash indexed and its chunk ids. */
  const indexed = new Map<string, { hash: string; ids: readonly string[] }>();
  let last = 0;
  let lastChange: DocumentChange | undefined;
  let syncing: Promise<void> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  let chunkCount = 0;
  const drop = (id: string): Promise<void> | undefined => {
    const entry = indexed.get(id);
    if (!entry) return;
    indexed.delete(id);
    chunkCount -= entry.ids.length;
    return index.remove(entry.ids);
  };

  /**
   * Indexes the documents `ids` name as they are now. The engine's calls are not awaited one by
   * one: a worker takes them in order, so the next batch is read from the store while it indexes
   * this one, with at most two batches of documents in flight.
   */
  async function refresh(ids: string[]) {
    let previous: Promise<unknown> = Promise.resolve();
    for (let i = 0; i < ids.length; i += DOCUMENT_BATCH) {
      const calls: (Promise<void> | undefined)[] = [];
      const batch = ids.slice(i, i + DOCUMENT_BATCH);
      const current = new Map((await documents.documents(batch)).map((d) => [d.id, d]));
      const wanted = [];
      for (const id of batch) {
        const doc = current.get(id);
        if (doc && indexed.get(id)?.hash === doc.hash) continue;
        calls.push(drop(id));
        if (doc) wanted.push(doc);
      }
      const chunks = await documents.chunks(wanted.flatMap((d) => d.chunk_ids));
      const titles = new Map(wanted.map((d) => [d.id, d.title]));
      for (let j = 0; j < chunks.length; j += INDEX_SLICE) {
        if (j > 0) await yieldToEventLoop();
        calls.push(index.add(
          chunks.slice(j, j + INDEX_SLICE).map((c) => ({
            id: c.id,
            title: titles.get(c.document_id) ?? "",
            text: c.text,
          })),
        ));
      }
      for (const doc of wanted) {
        indexed.set(doc.id, { hash: doc.hash, ids: doc.chunk_ids });
        chunkCount += doc.chunk_ids.length;
      }
      await previous;
      previous = Promise.all(calls);
    }
    await previous;
  }

  /** Empties the index, to build it again from the store's first change. */
  async function startOver() {
    indexed.clear();
    chunkCount = 0;
    last = 0;
    lastChange = undefined;
    await index.reset();
  }

  /**
   * The changes after the last one applied, or undefined when the store no longer holds that one as
   * it was read: the store lost its change stream (a Redis restarted empty numbers changes from 1
   * again, as it does events — the signal the event streams end on), so the changes above `last`
   * are not all there is. Reading from the last change itself also catches a stream written again
   * past `last` before this look. A `clear` in its place is no loss: it empties the index anyway.
   */
  async function changesAfterLast(): Promise<DocumentChange[] | undefined> {
    if (!lastChange) return await documents.changes(last, CHANGE_BATCH);
    const changes = await documents.changes(last - 1, CHANGE_BATCH + 1);
    const [first] = changes;
    if (
      first?.id === last && first.op === lastChange.op && first.document_id === lastChange.document_id &&
      first.at === lastChange.at
    ) return changes.slice(1);
    if (first && first.id > last && first.op === "clear") return changes;
    return undefined;
  }

  async function catchUp() {
    for (;;) {
      const changes = await changesAfterLast();
      if (!changes) {
        await startOver();
        continue;
      }
      if (changes.length === 0) return;
      let pending = new Set<string>();
      for (const change of changes) {
        if (change.op === "clear") {
          await index.reset();
          indexed.clear();
          chunkCount = 0;
          pending = new Set();
        } else pending.add(change.document_id!);
      }
      try {
        await refresh([...pending]);
      } catch (error) {
        // What the engine holds is unknown now: start over from the first change next time.
        await startOver().catch(() => {});
        throw error;
      }
      lastChange = changes[changes.length - 1];
      last = lastChange.id;
    }
  }

  const sync = (): Promise<void> => {
    // One catch-up at a time; a caller arriving during one waits for the next, which sees its writes.
    const run = (syncing ?? Promise.resolve()).catch(() => {}).then(catchUp);
    const mine: Promise<void> = run.finally(() => {
      if (syncing === mine) syncing = undefined;
    });
    syncing = mine;
    return mine;
  };

  return {
    engine,
    sync,
    async search(query, k) {
      await sync();
      const results = await index.search(query, k);
      if (results.length === 0) return [];
      const chunks = new Map((await documents.chunks(results.map((r) => String(r.id)))).map((c) => [c.id, c]));
      const docIds = [...new Set([...chunks.values()].map((c) => c.document_id))];
      const docs = new Map((await documents.documents(docIds)).map((d) => [d.id, d]));
      return results.flatMap((r) => {
        const chunk = chunks.get(String(r.id));
        const doc = chunk && docs.get(chunk.document_id);
        if (!chunk || !doc) return []; // replaced since the catch-up
        return [{
          chunk_id: chunk.id,
          document_id: doc.id,
          title: doc.title,
          source: doc.source,
          text: chunk.text,
          score: Math.round(r.score * 1000) / 1000,
        }];
      });
    },
    start(intervalMs = 1_000) {
      if (timer !== undefined || closed) return;
      // While nothing changes, each look waits twice as long, up to 8 intervals: an idle index (one per tenant)
      // costs the store little, and a search catches up by itself anyway.
      let waitMs = intervalMs;
      const tick = async () => {
        const before = last;
        const answered = await sync().then(() => true, () => false); // the next search reports a store outage
        waitMs = answered && last === before ? Math.min(waitMs * 2, 8 * intervalMs) : intervalMs;
        if (!closed) timer = setTimeout(tick, waitMs);
      };
      timer = setTimeout(tick, 0);
    },
    stats: () => ({ chunks: chunkCount, documents: indexed.size, last_change: last }),
    close() {
      closed = true;
      clearTimeout(timer);
      index.close();
    },
  };
}
