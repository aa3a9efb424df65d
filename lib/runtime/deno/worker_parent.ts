import type { MessagePortLike } from "../types.ts";

/** Inside a Deno worker: the port to the thread that started it (the worker's own global scope). */
export function denoWorkerParent(): MessagePortLike {
  const scope = globalThis as unknown as {
    postMessage(message: unknown): void;
    onmessage: ((event: MessageEvent) => void) | null;
    close(): void;
  };
  return {
    postMessage: (message) => scope.postMessage(message),
    onMessage: (listener) => scope.onmessage = (event) => listener(event.data),
    close: () => scope.close(),
  };
}
