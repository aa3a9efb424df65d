/**
 * Document pipelines: chunking at sentence and word boundaries, content hashing, reading the
 * source folder, the pipeline task kinds, and search — an index per process (the compact BM25
 * engine or MiniSearch, in a worker thread of its own where the runtime has one) derived from
 * the store's documents and kept current by their change stream.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from "../store/mod.ts";
 * import { createTaskRunner } from "../tasks/mod.ts";
 * import { createSearchIndex, pipelineTasks } from "./mod.ts";
 * const store = createMemoryStore();
 * const runner = createTaskRunner({ store, definitions: pipelineTasks(store.documents) });
 * await runner.submit({ kind: "pipeline_document", input: { title: "Redis", content: "Streams keep order.", source: "r.md" } });
 * const hits = await createSearchIndex(store).search("streams", 3);
 * ```
 *
 * @module
 */
export { type ChunkOptions, chunkText, DEFAULT_CHUNK_SIZE, MAX_CHUNK_SIZE, MIN_CHUNK_SIZE } from "./chunk.ts";
export { contentHash, documentId } from "./hash.ts";
export { type PipelineFieldError, PipelineInputError } from "./errors.ts";
export {
  createPipelineSource,
  DEFAULT_MAX_FILE_BYTES,
  type PipelineSource,
  type SkippedFile,
  SOURCE_EXTENSIONS,
  type SourceDocument,
} from "./source.ts";
export { createSearchIndex, type Retriever, type SearchHit, type SearchIndex } from "./search.ts";
export { createMiniSearchEngine, type EngineName, type IndexedChunk, type SearchEngine } from "./engine.ts";
export {
  createBm25Engine,
  MAX_NEAR_SPELLINGS,
  MAX_QUERY_TERMS,
  NEAR_SPELLING_STEPS,
  queryTerms,
  tokenize,
} from "./bm25.ts";
export { type AsyncEngine, localEngine, remoteEngine, SEARCH_WORKER, serveEngine } from "./engine_worker.ts";
export {
  DocumentInput,
  IngestInput,
  InlineDocument,
  MAX_CONTENT_LENGTH,
  PIPELINE_KINDS,
  pipelineTasks,
  prepareDocument,
  PrepareInput,
  RunInput,
} from "./tasks.ts";
