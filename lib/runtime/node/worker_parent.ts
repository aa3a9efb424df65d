import { parentPort } from "node:worker_threads";
import type { MessagePortLike } from "../types.ts";

/** Inside a Node `worker_threads` thread: the port to the thread that started it. */
export function nodeWorkerParent(): MessagePortLike {
  const port = parentPort!;
  return {
    postMessage: (message) => port.postMessage(message),
    onMessage: (listener) => port.on("message", listener),
    close: () => port.close(),
  };
}
