import type { Keyring } from "../lib/config/mod.ts";
import type { Transport, TransportOptions } from "../lib/http/mod.ts";

/** A stream the CLI writes to. */
export interface Output {
  write(text: string): void;
  /** Streams bytes through, resolving when all were written. */
  writeStream(stream: ReadableStream<Uint8Array>): Promise<void>;
  readonly isTTY: boolean;
}

/**
 * Every effect the CLI has, injected so that commands are testable without a network, a real
 * terminal or the user's files. Only `cli/main.ts` builds the real one.
 */
export interface CliContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: Output;
  readonly stderr: Output;
  /** Reads all of standard input. */
  readStdin(): Promise<string>;
  readTextFile(path: string): Promise<string>;
  readTextFileIfExists(path: string): Promise<string | undefined>;
  writeFileAtomic(path: string, data: string, options: { mode: number }): Promise<void>;
  /** Writes a stream to `path` atomically; resolves with the byte count. */
  writeStreamAtomic(path: string, stream: ReadableStream<Uint8Array>): Promise<number>;
  readonly home: string;
  readonly keyring: Keyring;
  createTransport(options: TransportOptions): Promise<Transport>;
}
