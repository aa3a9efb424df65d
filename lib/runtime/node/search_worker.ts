/**
 * The search index's worker on Node (`Runtime.startSearchWorker`): a compact BM25 engine
 * answering the server's messages in a `worker_threads` thread. The Node build bundles it as
 * `dist/lib/search_worker.js`, beside the chunks that start it (`tools/bundle.ts`).
 *
 * @module
 */
import { parentPort } from "node:worker_threads";
import { serveEngine } from "../../pipelines/engine_worker.ts";

const port = parentPort!;
serveEngine({
  postMessage: (message) => port.postMessage(message),
  onMessage: (listener) => port.on("message", listener),
  close: () => port.close(),
});
