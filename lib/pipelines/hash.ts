/** The SHA-256 of a text, in hex. */
export async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The content hash of a document: of its title and its chunks as stored, so a change of
 * either, or of `chunk_size` or `overlap`, makes it a changed document.
 */
export function contentHash(title: string, chunks: readonly string[]): Promise<string> {
  return sha256(`${title}\u0000${chunks.join("\u0000")}`);
}

/** A document's id: stable for its source, so re-ingesting a source replaces it. */
export async function documentId(source: string): Promise<string> {
  return (await sha256(source)).slice(0, 16);
}
