import { z } from "zod";
import type { DocumentStore, NewDocument } from "../store/mod.ts";
import { defineTask, TaskCancelledError, type TaskContext, type TaskDefinition } from "../tasks/mod.ts";
import { chunkText, DEFAULT_CHUNK_SIZE, MAX_CHUNK_SIZE, MIN_CHUNK_SIZE } from "./chunk.ts";
import { contentHash, documentId } from "./hash.ts";
import type { PipelineSource, SourceDocument } from "./source.ts";

/** The kinds of pipeline tasks, by operation. */
export const PIPELINE_KINDS = {
  run: "pipeline_run",
  prepare: "pipeline_prepare",
  ingest: "pipeline_ingest",
  full: "pipeline_full",
  document: "pipeline_document",
} as const;

/** The largest inline document, in characters (the request body limit usually comes first). */
export const MAX_CONTENT_LENGTH = 10_000_000;

const chunkSize = z.number().int().min(MIN_CHUNK_SIZE, `chunk_size must be at least ${MIN_CHUNK_SIZE}`).max(
  MAX_CHUNK_SIZE,
  `chunk_size must be at most ${MAX_CHUNK_SIZE}`,
);
const overlap = z.number().int().min(0).max(MAX_CHUNK_SIZE / 2 - 1);
const chunking = {
  chunk_size: chunkSize.default(DEFAULT_CHUNK_SIZE),
  overlap: overlap.default(0),
};
/** `overlap` must stay below half of `chunk_size` (else each chunk would repeat most of the one before). */
const overlapBelowHalf = (input: { chunk_size: number; overlap: number }, ctx: z.RefinementCtx) => {
  if (input.overlap * 2 >= input.chunk_size) {
    ctx.addIssue({
      code: "custom",
      path: ["overlap"],
      message: `overlap must be less than half of chunk_size (${input.chunk_size}); got ${input.overlap}`,
    });
  }
};
const trimmed = (name: string) => z.string({ error: `${name} is required` }).trim().min(1, `${name} must not be empty`);

/** One inline document. */
export const InlineDocument = z.object({
  title: trimmed("title"),
  content: trimmed("content").max(MAX_CONTENT_LENGTH, `content must be at most ${MAX_CONTENT_LENGTH} characters`),
  source: trimmed("source"),
});

/** `POST /pipelines/run`. */
export const RunInput = z.object({
  documents: z.array(InlineDocument).min(1, "documents must not be empty"),
  ...chunking,
}).strict().superRefine(overlapBelowHalf);

/** `POST /pipelines/documents`. */
export const DocumentInput = InlineDocument.extend(chunking).strict().superRefine(overlapBelowHalf);

/** `POST /pipelines/prepare` and `/full`. */
export const PrepareInput = z.object({ path: z.string().default(""), ...chunking }).strict()
  .superRefine(overlapBelowHalf);

/** `POST /pipelines/ingest`. */
export const IngestInput = z.object({}).strict();

/** Staged documents moved per store call while ingesting. */
const INGEST_BATCH = 20;

/** Throws when the task was cancelled: checked between documents, so each is in whole or not at all. */
function checkpoint(ctx: TaskContext) {
  if (ctx.signal.aborted) throw new TaskCancelledError(ctx.taskId);
}

/** A source document chunked and hashed, ready for the store. */
export async function prepareDocument(
  doc: SourceDocument,
  options: { chunk_size: number; overlap: number },
): Promise<NewDocument> {
  const title = doc.title.trim();
  const chunks = chunkText(doc.content, { chunkSize: options.chunk_size, overlap: options.overlap });
  return {
    id: await documentId(doc.source),
    title,
    source: doc.source,
    hash: await contentHash(title, chunks),
    chunks,
  };
}

/**
 * The pipeline task kinds over a documents store: `pipeline_run` (inline documents, prepared and
 * ingested), `pipeline_prepare` (the source folder into the staging area), `pipeline_ingest`
 * (staged documents into the index), `pipeline_full` (both) and `pipeline_document` (one
 * inline document). Each emits `update` events with its progress, checks for cancel between
 * documents (every write is one whole document), and records its state in the pipeline status.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from "../store/mod.ts";
 * import { createTaskRunner } from "../tasks/mod.ts";
 * const store = createMemoryStore();
 * const runner = createTaskRunner({ store, definitions: pipelineTasks(store.documents) });
 * await runner.submit({ kind: "pipeline_document", input: { title: "T", content: "Hello.", source: "a" } });
 * ```
 */
export function pipelineTasks(documents: DocumentStore, options: { source?: PipelineSource } = {}): TaskDefinition[] {
  /** Runs a stage with the pipeline status kept: its state while it runs, its outcome after. */
  const tracked = async <T>(ctx: TaskContext, state: string, work: () => Promise<T>): Promise<T> => {
    await documents.setState(state, ctx.taskId);
    try {
      const result = await work();
      await documents.setState("idle", ctx.taskId);
      return result;
    } catch (error) {
      const outcome = ctx.signal.aborted || error instanceof TaskCancelledError ? "cancelled" : "failed";
      await documents.setState(outcome, ctx.taskId).catch(() => {});
      throw error;
    }
  };

  const ingestInline = async (
    ctx: TaskContext,
    docs: readonly SourceDocument[],
    chunking: { chunk_size: number; overlap: number },
  ) => {
    const counts = { added: 0, replaced: 0, unchanged: 0, chunks: 0 };
    for (const [i, doc] of docs.entries()) {
      checkpoint(ctx);
      const prepared = await prepareDocument(doc, chunking);
      const outcome = await documents.put(prepared);
      counts[outcome.status]++;
      counts.chunks += outcome.chunks;
      await ctx.update(
        `document ${i + 1} of ${docs.length}: ${doc.source} ${outcome.status} (${outcome.chunks} chunks)`,
      );
    }
    return { documents: docs.length, ...counts };
  };

  const prepare = async (ctx: TaskContext, input: z.output<typeof PrepareInput>) => {
    if (!options.source) throw new Error("No source folder is configured: set PIPELINE_SOURCE_DIR and restart");
    const source = options.source;
    const resolved = await source.resolve(input.path);
    let prepared = 0;
    let chunks = 0;
    const skipped: string[] = [];
    for await (const doc of source.read(resolved, (file) => skipped.push(`${file.path}: ${file.reason}`))) {
      checkpoint(ctx);
      const ready = await prepareDocument(doc, input);
      await documents.stage([ready]);
      prepared++;
      chunks += ready.chunks.length;
      await ctx.update(`prepared ${doc.source} (${ready.chunks.length} chunks)`);
    }
    for (const line of skipped) await ctx.update(`skipped ${line}`, "warning");
    return { prepared, staged_chunks: chunks, skipped: skipped.length };
  };

  const ingest = async (ctx: TaskContext) => {
    const counts = { ingested: 0, added: 0, replaced: 0, unchanged: 0, chunks: 0 };
    const total = (await documents.status()).staged_chunks;
    for (;;) {
      const batch = await documents.staged(INGEST_BATCH);
      if (batch.length === 0) break;
      for (const doc of batch) {
        checkpoint(ctx);
        const outcome = await documents.put(doc, { unstage: true });
        counts.ingested++;
        counts[outcome.status]++;
        counts.chunks += outcome.chunks;
        await ctx.update(`ingested ${doc.source} ${outcome.status} (${counts.chunks} of ${total} staged chunks)`);
      }
    }
    return counts;
  };

  return [
    defineTask({
      kind: PIPELINE_KINDS.run,
      input: RunInput,
      run: (ctx, input) => tracked(ctx, "ingesting", () => ingestInline(ctx, input.documents, input)),
      // The documents are in the store once it is done: the task keeps their count, not a copy.
      inputWhenDone: ({ documents, chunk_size, overlap }) => ({ documents: documents.length, chunk_size, overlap }),
    }),
    defineTask({
      kind: PIPELINE_KINDS.document,
      input: DocumentInput,
      run: (ctx, input) => tracked(ctx, "ingesting", () => ingestInline(ctx, [input], input)),
      inputWhenDone: ({ content: _, ...rest }) => rest,
    }),
    defineTask({
      kind: PIPELINE_KINDS.prepare,
      input: PrepareInput,
      run: (ctx, input) => tracked(ctx, "preparing", () => prepare(ctx, input)),
    }),
    defineTask({
      kind: PIPELINE_KINDS.ingest,
      input: IngestInput,
      run: (ctx) => tracked(ctx, "ingesting", () => ingest(ctx)),
    }),
    defineTask({
      kind: PIPELINE_KINDS.full,
      input: PrepareInput,
      async run(ctx, input) {
        const prepared = await tracked(ctx, "preparing", () => prepare(ctx, input));
        const ingested = await tracked(ctx, "ingesting", () => ingest(ctx));
        return { ...prepared, ...ingested };
      },
    }),
  ].map((definition) => ({ ...definition, lane: "pipelines" })); // never behind agent tasks (PIPELINE_CONCURRENCY)
}
