import process from "node:process";

/** Standard output or error, written through the runtime's stream with backpressure. */
export interface StdStream {
  write(text: string): void;
  writeStream(stream: ReadableStream<Uint8Array>): Promise<void>;
  /** Resolves once everything written so far has been handed to the OS. */
  flush(): Promise<void>;
  readonly isTTY: boolean;
}

function stdStream(stream: typeof process.stdout | typeof process.stderr): StdStream {
  return {
    write: (text) => void stream.write(text),
    async writeStream(body) {
      for await (const chunk of body) {
        if (!stream.write(chunk)) await new Promise((resolve) => stream.once("drain", resolve));
      }
    },
    flush: () => new Promise((resolve) => stream.write("", () => resolve())),
    isTTY: stream.isTTY === true,
  };
}

export const stdout: StdStream = stdStream(process.stdout);
export const stderr: StdStream = stdStream(process.stderr);

/** All of standard input, as text. */
export async function readStdin(): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Uint8Array);
  return new TextDecoder().decode(await new Blob(chunks as BlobPart[]).arrayBuffer());
}

/** A snapshot of the environment. */
export function environment(): Record<string, string | undefined> {
  return { ...process.env };
}
