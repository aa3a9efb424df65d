/**
 * The MCP tasks of one `ctl mcp serve`: a `--wait` command called as a task (MCP's tasks
 * extension) runs in the background while the client asks `tasks/get`; `tasks/cancel` stops the
 * waiting (the remote operation goes on, as after Ctrl+C). Kept in the SDK's in-memory store,
 * shared by every connection of the server.
 *
 * @module
 */
import type { TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";

/** The tasks of a server. */
export interface TaskRegistry {
  readonly store: TaskStore;
  /** Registers a running call; `stop` is called if its task is cancelled. */
  running(taskId: string, stop: () => void): () => void;
  /** Ends the store's clean-up timers. */
  close(): void;
}

/** How long a finished task's result is kept when the client does not say: an hour. */
export const DEFAULT_TASK_TTL_MS = 3_600_000;

/** A registry over the SDK's in-memory task store, whose cancellations stop the calls they name. */
export async function createTaskRegistry(): Promise<TaskRegistry> {
  const { InMemoryTaskStore } = await import("@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js");
  const stops = new Map<string, () => void>();
  class CancellingStore extends InMemoryTaskStore {
    async updateTaskStatus(...args: Parameters<TaskStore["updateTaskStatus"]>): Promise<void> {
      await super.updateTaskStatus(...args);
      if (args[1] === "cancelled") stops.get(args[0] as string)?.();
    }
  }
  const store = new CancellingStore();
  return {
    store,
    running(taskId, stop) {
      stops.set(taskId, stop);
      return () => stops.delete(taskId);
    },
    close: () => store.cleanup(),
  };
}
