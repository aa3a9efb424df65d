/**
 * The search index's worker on Deno (`Runtime.startSearchWorker`): a compact BM25 engine
 * answering the server's messages in its own thread.
 *
 * @module
 */
import { serveEngine } from "../../pipelines/engine_worker.ts";

const scope = globalThis as unknown as {
  postMessage(message: unknown): void;
  onmessage: ((event: MessageEvent) => void) | null;
  close(): void;
};
serveEngine({
  postMessage: (message) => scope.postMessage(message),
  onMessage: (listener) => scope.onmessage = (event) => listener(event.data),
  close: () => scope.close(),
});
