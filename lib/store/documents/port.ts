/** A stored document: its chunks are stored beside it, in order. */
export interface DocumentRecord {
  /** Stable per source (see `documentId()` in `lib/pipelines`). */
  readonly id: string;
  readonly title: string;
  readonly source: string;
  /** The content hash: an unchanged source and hash make `put` a no-op. */
  readonly hash: string;
  readonly chunk_ids: readonly string[];
  readonly updated_at: string;
}

/** One chunk of a document's text. */
export interface ChunkRecord {
  readonly id: string;
  readonly document_id: string;
  /** Position within the document, from 0. */
  readonly index: number;
  readonly text: string;
}

/** A document with its chunk texts, as `put` and the staging area take it. */
export interface NewDocument {
  readonly id: string;
  readonly title: string;
  readonly source: string;
  readonly hash: string;
  readonly chunks: readonly string[];
}

/** What `put` did. */
export interface PutOutcome {
  /** `added`: new; `replaced`: its old chunks went; `unchanged`: same source and hash, nothing written. */
  readonly status: "added" | "replaced" | "unchanged";
  readonly chunks: number;
  /** Chunks of the previous version removed. */
  readonly removed: number;
}

/**
 * One entry of the change stream, with its sequence id (from 1, per store). `put` names the
 * document written (read it for its current state); `clear` means everything went.
 */
export interface DocumentChange {
  readonly id: number;
  readonly op: "put" | "clear";
  readonly document_id?: string;
  /** The chunk ids a `put` replaced. */
  readonly removed?: readonly string[];
  /**
   * When it was written (ISO 8601, ms). With its id it tells this entry from one a store that
   * restarted empty numbered the same; absent on entries stored before it was recorded.
   */
  readonly at?: string;
}

/** Where pipelines stand: `GET /pipelines/status`. */
export interface PipelineStatus {
  readonly chunks: number;
  readonly documents: number;
  readonly staged_chunks: number;
  /** `idle` until a pipeline task runs; then its stage (`preparing`, `ingesting`) or outcome. */
  readonly state: string;
  readonly last_task_id: string | null;
  readonly updated_at: string | null;
}

/**
 * The `documents` port: documents and their chunks (the source of truth the search index is
 * derived from), a staging area of prepared documents, the pipeline status, and a change
 * stream. Each write is one atomic step that also appends to the change stream, so a process
 * that reads the stream after its last id keeps a derived index exactly current.
 */
export interface DocumentStore {
  /**
   * Stores a document with its chunks in one atomic step: a document is in whole or not at all.
   * Same source and hash as stored → `unchanged` (nothing written, no change entry); a changed
   * one replaces its old chunks. With `unstage`, its staged copy goes in the same step.
   */
  put(document: NewDocument, options?: { unstage?: boolean }): Promise<PutOutcome>;
  /** The documents with these ids that exist, in the same order. */
  documents(ids: readonly string[]): Promise<DocumentRecord[]>;
  /** The chunks with these ids that exist, in the same order. */
  chunks(ids: readonly string[]): Promise<ChunkRecord[]>;
  /** Adds (or replaces, by source) prepared documents in the staging area; returns the staged chunk total. */
  stage(documents: readonly NewDocument[]): Promise<number>;
  /** Staged documents, oldest first, at most `limit`. */
  staged(limit: number): Promise<NewDocument[]>;
  status(): Promise<PipelineStatus>;
  /** Records a pipeline task's state. */
  setState(state: string, taskId: string): Promise<void>;
  /** Removes every document, chunk and staged document; returns how many chunks went. Appends `clear`. */
  clear(): Promise<number>;
  /** Changes with an id above `after`, oldest first, at most `limit`. */
  changes(after: number, limit?: number): Promise<DocumentChange[]>;
}
