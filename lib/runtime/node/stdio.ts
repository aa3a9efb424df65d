import process from "node:process";
import { isatty } from "node:tty";
import { BrokenPipe, type StdIn, type StdStream } from "../types.ts";

/** A std stream on `process.stdout`/`stderr`: writes keep their order; a gone reader drops them. */
export function nodeStdStream(stream: typeof process.stdout | typeof process.stderr): StdStream {
  let closed = false;
  stream.on("error", (error: { code?: string }) => {
    if (error.code !== "EPIPE") throw error;
    closed = true;
  });
  const self: StdStream = {
    write(data) {
      if (!closed) stream.write(data);
    },
    async writeStream(body) {
      for await (const chunk of body) {
        if (closed) throw new BrokenPipe();
        if (!stream.write(chunk)) await drainedOrClosed(stream);
      }
      if (closed) throw new BrokenPipe();
    },
    flush: () => new Promise((resolve) => closed ? resolve() : stream.write("", () => resolve())),
    isTTY: stream.isTTY === true,
    columns: () => (stream.isTTY ? stream.columns : undefined),
    get closed() {
      return closed;
    },
  };
  return self;
}

let lines: AsyncIterator<string> | undefined;

/** Standard input on `process.stdin`, which is created only when read (it costs Node a file stream). */
export const nodeStdin: StdIn = {
  isTTY: isatty(0),
  async readAll() {
    const chunks: Uint8Array[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Uint8Array);
    return new Uint8Array(await new Blob(chunks as BlobPart[]).arrayBuffer());
  },
  async readLine() {
    if (!lines) {
      const { createInterface } = await import("node:readline");
      lines = createInterface({ input: process.stdin, terminal: false })[Symbol.asyncIterator]();
    }
    const next = await lines.next();
    return next.done ? undefined : next.value;
  },
};

/** Resolves when `stream` can take more, or has failed (a reader that went away never drains). */
function drainedOrClosed(stream: typeof process.stdout | typeof process.stderr): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off("drain", done).off("error", done).off("close", done);
      resolve();
    };
    stream.on("drain", done).on("error", done).on("close", done);
  });
}
