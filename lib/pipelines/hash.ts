import { digestHex } from "../text/mod.ts";

/**
 * The content hash of a document: of its title and its chunks as stored, so a change of
 * either, or of `chunk_size` or `overlap`, makes it a changed document.
 */
export function contentHash(title: string, chunks: readonly string[]): Promise<string> {
  return digestHex("SHA-256", `${title}\u0000${chunks.join("\u0000")}`);
}

/** A document's id: stable for its source, so re-ingesting a source replaces it. */
export async function documentId(source: string): Promise<string> {
  return (await digestHex("SHA-256", source)).slice(0, 16);
}
