/**
 * The search index's worker thread (`SEARCH_WORKER`): an engine answering the index's messages
 * in a thread of its own, on Deno and in Node's bundle alike.
 *
 * @module
 */
import { workerParent } from "../runtime/mod.ts";
import { serveEngine } from "./engine_worker.ts";

serveEngine(await workerParent());
