import { type ScriptHost, scriptRunner } from "../script_host.ts";
import { chunkId } from "./memory.ts";
import type { ChunkRecord, DocumentChange, DocumentRecord, DocumentStore, NewDocument, PutOutcome } from "./port.ts";
import {
  CHANGES_LUA,
  CHUNKS_LUA,
  CLEAR_LUA,
  DOCUMENTS_LUA,
  PUT_LUA,
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
  options: { prefix?: string; now?: () => number } = {},
): DocumentStore {
  const p = `${options.prefix ?? ""}{d}:`;
  const slotKey = [`${p}seq`];
  const now = () => new Date((options.now ?? Date.now)()).toISOString();
  const runScript = scriptRunner(host, slotKey);
  const run = (script: string, args: string[]) => runScript(script, [p, now(), ...args]);
  const batches = async <T>(ids: readonly string[], read: (batch: string[]) => Promise<T[]>): Promise<T[]> => {
    const out: T[] = [];
    for (let i = 0; i < ids.length; i += READ_BATCH) out.push(...await read(ids.slice(i, i + READ_BATCH)));
    return out;
  };
  return {
    async put(document, options = {}) {
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
        const reply = await run(DOCUMENTS_LUA, batch) as (string | null)[];
        return reply.flatMap((raw, i) => raw ? [toDocument(batch[i], String(raw))] : []);
      }),
    chunks: (ids) =>
      batches(ids, async (batch) => {
        const reply = await run(CHUNKS_LUA, batch) as (string | null)[];
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
      return {
        chunks: Number(chunks),
        documents: Number(documents),
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
      return Number(await run(CLEAR_LUA, []));
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
  if (f.op !== "put") return { id: seq, op: "clear" };
  const removed = f.h ? Array.from({ length: Number(f.n) }, (_, i) => chunkId(f.d, f.h, i)) : [];
  return { id: seq, op: "put", document_id: f.d, removed };
}
