/**
 * The search index's worker thread (`SEARCH_WORKER`): an engine answering the index's messages
 * in a thread of its own, on Deno and in Node's bundle alike.
 *
 * @module
 */
// Not through lib/runtime/mod.ts: what only a worker needs stays out of every other module graph (ctl's above all).
import { workerParent } from "../runtime/worker.ts";
import { serveEngine } from "./engine_worker.ts";

serveEngine(await workerParent());
