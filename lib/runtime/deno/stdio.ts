import { BrokenPipe, type StdIn, type StdStream } from "../types.ts";

type Writable = typeof Deno.stdout | typeof Deno.stderr;

/** A std stream on `Deno.stdout`/`Deno.stderr`: writes queue in order; a gone reader drops them. */
export function denoStdStream(stream: Writable): StdStream {
  let queue = Promise.resolve();
  let closed = false;
  const writeAll = async (bytes: Uint8Array) => {
    for (let offset = 0; offset < bytes.length && !closed;) {
      try {
        offset += await stream.write(bytes.subarray(offset));
      } catch (error) {
        if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
        closed = true;
      }
    }
  };
  const encoder = new TextEncoder();
  const self: StdStream = {
    write(data) {
      const bytes = typeof data === "string" ? encoder.encode(data) : data;
      queue = queue.then(() => writeAll(bytes));
    },
    async writeStream(body) {
      await queue;
      for await (const chunk of body) {
        await writeAll(chunk);
        if (closed) throw new BrokenPipe();
      }
    },
    flush: () => queue,
    isTTY: stream.isTerminal(),
    columns() {
      if (!self.isTTY) return undefined;
      try {
        return Deno.consoleSize().columns;
      } catch {
        return undefined;
      }
    },
    get closed() {
      return closed;
    },
  };
  return self;
}

/** Standard input on `Deno.stdin`. */
export const denoStdin: StdIn = {
  isTTY: Deno.stdin.isTerminal(),
  async readAll() {
    return new Uint8Array(await new Response(Deno.stdin.readable).arrayBuffer());
  },
  async readLine() {
    const bytes: number[] = [];
    const byte = new Uint8Array(1);
    for (;;) {
      const n = await Deno.stdin.read(byte);
      if (n === null) return bytes.length ? new TextDecoder().decode(new Uint8Array(bytes)) : undefined;
      if (byte[0] === 10) return new TextDecoder().decode(new Uint8Array(bytes)).replace(/\r$/, "");
      bytes.push(byte[0]);
    }
  },
};
