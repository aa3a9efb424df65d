import type {
  ChunkRecord,
  DocumentChange,
  DocumentRecord,
  DocumentStore,
  NewDocument,
  PipelineStatus,
  PutOutcome,
} from "./port.ts";

/** The id of a document's chunk `index`: it changes with the content, so a replaced chunk never keeps its id. */
export function chunkId(documentId: string, hash: string, index: number): string {
  return `${documentId}-${hash.slice(0, 8)}-${index}`;
}

/**
 * The memory twin of the Redis document scripts (`scripts.ts`): each operation is one
 * synchronous block, so it is atomic within the process.
 *
 * @example
 * ```ts
 * const documents = createMemoryDocumentStore();
 * await documents.put({ id: "d1", title: "T", source: "a.md", hash: "ab12", chunks: ["Hello."] });
 * (await documents.changes(0)).map((c) => c.op); // ["put"]
 * ```
 */
export function createMemoryDocumentStore(options: { now?: () => number } = {}): DocumentStore {
  const now = () => new Date((options.now ?? Date.now)()).toISOString();
  const docs = new Map<string, DocumentRecord>();
  const chunks = new Map<string, ChunkRecord>();
  const staged = new Map<string, NewDocument>();
  let stagedChunks = 0;
  let changes: DocumentChange[] = [];
  let seq = 0;
  let state = "idle";
  let lastTaskId: string | null = null;
  let updatedAt: string | null = null;
  const unstage = (source: string) => {
    const old = staged.get(source);
    if (!old) return;
    staged.delete(source);
    stagedChunks -= old.chunks.length;
  };
  return {
    put(document, options = {}) {
      const old = docs.get(document.id);
      if (options.unstage) unstage(document.source);
      if (old && old.source === document.source && old.hash === document.hash) {
        return Promise.resolve<PutOutcome>({ status: "unchanged", chunks: old.chunk_ids.length, removed: 0 });
      }
      for (const id of old?.chunk_ids ?? []) chunks.delete(id);
      const at = now();
      const ids = document.chunks.map((text, index) => {
        const id = chunkId(document.id, document.hash, index);
        chunks.set(id, { id, document_id: document.id, index, text });
        return id;
      });
      docs.set(document.id, {
        id: document.id,
        title: document.title,
        source: document.source,
        hash: document.hash,
        chunk_ids: ids,
        updated_at: at,
      });
      changes.push({ id: ++seq, op: "put", document_id: document.id, removed: [...(old?.chunk_ids ?? [])], at });
      return Promise.resolve<PutOutcome>({
        status: old ? "replaced" : "added",
        chunks: ids.length,
        removed: old?.chunk_ids.length ?? 0,
      });
    },
    documents: (ids) => Promise.resolve(ids.flatMap((id) => docs.get(id) ?? [])),
    chunks: (ids) => Promise.resolve(ids.flatMap((id) => chunks.get(id) ?? [])),
    stage(documents) {
      for (const document of documents) {
        unstage(document.source);
        staged.set(document.source, { ...document, chunks: [...document.chunks] });
        stagedChunks += document.chunks.length;
      }
      return Promise.resolve(stagedChunks);
    },
    staged: (limit) => Promise.resolve([...staged.values()].slice(0, limit)),
    status: () =>
      Promise.resolve<PipelineStatus>({
        chunks: chunks.size,
        documents: docs.size,
        staged_chunks: stagedChunks,
        state,
        last_task_id: lastTaskId,
        updated_at: updatedAt,
      }),
    setState(next, taskId) {
      state = next;
      lastTaskId = taskId;
      updatedAt = now();
      return Promise.resolve();
    },
    clear() {
      const cleared = chunks.size;
      docs.clear();
      chunks.clear();
      staged.clear();
      stagedChunks = 0;
      updatedAt = now();
      changes = [{ id: ++seq, op: "clear", at: updatedAt }]; // what came before no longer matters to a reader
      return Promise.resolve(cleared);
    },
    changes(after, limit = 1_000) {
      let lo = 0, hi = changes.length; // ids ascend: the first above `after` by bisection
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (changes[mid].id > after) hi = mid;
        else lo = mid + 1;
      }
      return Promise.resolve(changes.slice(lo, lo + limit));
    },
  };
}
