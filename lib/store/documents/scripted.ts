import { scriptCaller, type ScriptHost } from "../script_host.ts";
import { FIRST_CLUSTER_PARTITIONS, partitionOf, partitionTags } from "../tasks/layout.ts";
import { chunkId } from "./memory.ts";
import type { ChunkRecord, DocumentChange, DocumentRecord, DocumentStore, NewDocument, PutOutcome } from "./port.ts";
import {
  CHANGES_LUA,
  CHUNKS_LUA,
  CLEAR_LUA,
  CLEAR_PARTITION_LUA,
  COUNT_LUA,
  DOCUMENTS_LUA,
  PUT_DOCUMENT_LUA,
  PUT_LUA,
  RECORD_PUT_LUA,
  SET_STATE_LUA,
  STAGE_LUA,
  STAGED_LUA,
  STATUS_LUA,
} from "./scripts.ts";

/** Ids per `documents`/`chunks` call: keeps each script call's argument list bounded. */
const READ_BATCH = 5_000;

/**
 * The `documents` port over a Redis-speaking host (ioredis or Upstash REST) with the scripts
 * of `scripts.ts`; the memory twin is `memory.ts`.
 *
 * @example
 * ```ts ignore
 * const documents = createScriptedDocumentStore(host, { prefix: "storectl:" });
 * ```
 */
export function createScriptedDocumentStore(
  host: ScriptHost,
  options: { prefix?: string; now?: () => number; cluster?: boolean } = {},
): DocumentStore {
  const p = `${options.prefix ?? ""}{d}:`;
  const now = () => new Date((options.now ?? Date.now)()).toISOString();
  const call = scriptCaller(host);
  const at = (keys: string, script: string, args: string[]) => call([`${keys}seq`], script, [keys, now(), ...args]);
  const run = (script: string, args: string[]) => at(p, script, args);
  // On a cluster, documents and chunks spread by document id over the first layout's 16 partitions (see scripts.ts);
  // one Redis keeps them in {d}.
  const parts = options.cluster
    ? partitionTags("d", FIRST_CLUSTER_PARTITIONS).map((tag) => `${options.prefix ?? ""}{${tag}}:`)
    : [];
  const home = (documentId: string) => parts[partitionOf(documentId, parts.length)];
  /** Reads `ids` with `script` where their documents are (`documentOf`), the replies in the order of `ids`. */
  const spread = async (ids: string[], documentOf: (id: string) => string, script: string) => {
    if (parts.length === 0) return await run(script, ids) as (string | null)[];
    const groups = new Map<string, number[]>();
    ids.forEach((id, i) => {
      const keys = home(documentOf(id));
      groups.set(keys, [...groups.get(keys) ?? [], i]);
    });
    const out: (string | null)[] = new Array(ids.length).fill(null);
    await Promise.all([...groups].map(async ([keys, at_]) => {
      const reply = await at(keys, script, at_.map((i) => ids[i])) as (string | null)[];
      at_.forEach((i, j) => out[i] = reply[j]);
    }));
    return out;
  };
  const batches = async <T>(ids: readonly string[], read: (batch: string[]) => Promise<T[]>): Promise<T[]> => {
    const out: T[] = [];
    for (let i = 0; i < ids.length; i += READ_BATCH) out.push(...await read(ids.slice(i, i + READ_BATCH)));
    return out;
  };
  return {
    async put(document, options = {}) {
      if (parts.length > 0) {
        const [status, chunks, removed, oldHash] = await at(home(document.id), PUT_DOCUMENT_LUA, [
          document.id,
          document.title,
          document.source,
          document.hash,
          ...document.chunks,
        ]) as [string, number, number, string];
        const changed = String(status) !== "unchanged";
        if (changed || options.unstage) {
          await run(RECORD_PUT_LUA, [
            options.unstage ? "1" : "0",
            document.source,
            changed ? "1" : "0",
            document.id,
            String(oldHash ?? ""),
            String(removed),
          ]);
        }
        return { status: String(status) as PutOutcome["status"], chunks: Number(chunks), removed: Number(removed) };
      }
      const [status, chunks, removed] = await run(PUT_LUA, [
        document.id,
        document.title,
        document.source,
        document.hash,
        options.unstage ? "1" : "0",
        ...document.chunks,
      ]) as [string, number, number];
      return { status: String(status) as PutOutcome["status"], chunks: Number(chunks), removed: Number(removed) };
    },
    documents: (ids) =>
      batches(ids, async (batch) => {
        const reply = await spread(batch, (id) => id, DOCUMENTS_LUA);
        return reply.flatMap((raw, i) => raw ? [toDocument(batch[i], String(raw))] : []);
      }),
    chunks: (ids) =>
      batches(ids, async (batch) => {
        const reply = await spread(batch, (id) => toChunk(id, "").document_id, CHUNKS_LUA);
        return reply.flatMap((text, i) => text === null || text === undefined ? [] : [toChunk(batch[i], String(text))]);
      }),
    async stage(documents) {
      const args = documents.flatMap((d) => [d.source, String(d.chunks.length), JSON.stringify(d)]);
      return Number(await run(STAGE_LUA, args));
    },
    async staged(limit) {
      const reply = await run(STAGED_LUA, [String(limit)]) as (string | null)[];
      return reply.flatMap((raw) => raw ? [JSON.parse(String(raw)) as NewDocument] : []);
    },
    async status() {
      const [chunks, documents, staged, state, last, updated] = await run(STATUS_LUA, []) as unknown[];
      const counts = await Promise.all(parts.map((keys) => at(keys, COUNT_LUA, []) as Promise<[number, number]>));
      return {
        chunks: Number(chunks) + counts.reduce((sum, [n]) => sum + Number(n), 0),
        documents: Number(documents) + counts.reduce((sum, [, n]) => sum + Number(n), 0),
        staged_chunks: Number(staged),
        state: String(state),
        last_task_id: last ? String(last) : null,
        updated_at: updated ? String(updated) : null,
      };
    },
    async setState(state, taskId) {
      await run(SET_STATE_LUA, [state, taskId]);
    },
    async clear() {
      // The `clear` change first: a document put meanwhile is read back by the index after it (gone or there).
      const own = Number(await run(CLEAR_LUA, []));
      const cleared = await Promise.all(parts.map((keys) => at(keys, CLEAR_PARTITION_LUA, [])));
      return own + cleared.reduce((sum: number, n) => sum + Number(n), 0);
    },
    async changes(after, limit = 1_000) {
      const reply = await run(CHANGES_LUA, [String(after), String(limit)]) as [string, string[]][];
      return reply.map(([id, fields]) => toChange(String(id), fields.map(String)));
    },
  };
}

function toDocument(id: string, raw: string): DocumentRecord {
  const d = JSON.parse(raw) as { title: string; source: string; hash: string; n: number; updated_at: string };
  return {
    id,
    title: d.title,
    source: d.source,
    hash: d.hash,
    chunk_ids: Array.from({ length: d.n }, (_, i) => chunkId(id, d.hash, i)),
    updated_at: d.updated_at,
  };
}

/** A chunk id is `<document id>-<hash prefix>-<index>`; the document id may hold dashes. */
function toChunk(id: string, text: string): ChunkRecord {
  const last = id.lastIndexOf("-");
  const middle = id.lastIndexOf("-", last - 1);
  return { id, document_id: id.slice(0, middle), index: Number(id.slice(last + 1)), text };
}

function toChange(id: string, fields: string[]): DocumentChange {
  const f: Record<string, string> = {};
  for (let i = 0; i < fields.length; i += 2) f[fields[i]] = fields[i + 1];
  const seq = Number(id.slice(id.indexOf("-") + 1));
  const at = f.t ? { at: f.t } : {};
  if (f.op !== "put") return { id: seq, op: "clear", ...at };
  const removed = f.h ? Array.from({ length: Number(f.n) }, (_, i) => chunkId(f.d, f.h, i)) : [];
  return { id: seq, op: "put", document_id: f.d, removed, ...at };
}
