import type { Transport, TransportOptions } from "../http/transport.ts";
import type { ServeLimits, ServeLog } from "./serve_limits.ts";

/**
 * Everything storectl needs from the runtime it runs on, implemented once with Deno's APIs
 * (`deno.ts`) and once with Node's (`node.ts`). `loadRuntime()` picks one at start, so Deno never
 * loads its Node-compatibility layer on the `ctl` path.
 */
export interface Runtime {
  readonly name: "deno" | "node";
  /** Command-line arguments after the script. */
  readonly args: readonly string[];
  /** A snapshot of the environment. */
  env(): Record<string, string | undefined>;
  cwd(): string;
  homeDir(): string;
  /** Ends the process. */
  exit(code: number): never;
  /**
   * Calls `handler` on the first of `signals` (default SIGINT, SIGTERM and SIGHUP); the handler
   * decides how to exit.
   */
  onTerminate(handler: (signal: TerminatingSignal) => void, signals?: readonly TerminatingSignal["name"][]): void;
  /** Calls `handler` on every SIGHUP (a daemon's "read your configuration again"); leave SIGHUP out of `onTerminate`. */
  onHangup(handler: () => void): void;
  readonly stdin: StdIn;
  readonly stdout: StdStream;
  readonly stderr: StdStream;
  readonly fs: FileSystem;
  serve(options: ServeOptions): Promise<Listener>;
  /** A gzip transform that holds backpressure (Node's `CompressionStream` does not). */
  gzip(): ReadableWritablePair<Uint8Array<ArrayBuffer>, BufferSource>;
  /**
   * A gunzip transform that holds backpressure (Node's `DecompressionStream` does not, and is
   * slow) and hands out chunks of a few MiB at most, however well the input compresses.
   */
  gunzip(): ReadableWritablePair<Uint8Array<ArrayBuffer>, BufferSource>;
  /** Starts this program again with `args`, detached (it outlives this one), stdio closed; resolves with its pid. */
  launchDetached(args: readonly string[]): Promise<number>;
  /** The cheapest HTTP transport that honours the TLS and proxy settings. */
  createTransport(options: TransportOptions): Promise<Transport>;
  /**
   * Starts a worker thread running `script` (the search index's engine, say), where the runtime
   * has threads (Deno, and Node's bundle); absent elsewhere (edge runtimes), where such work runs
   * in the main thread.
   */
  readonly startWorker?: (script: WorkerScript) => MessagePortLike;
}

/**
 * A worker thread's script, named for both runtimes: its module (Deno starts it as it is) and
 * the file the Node build makes of it beside the bundle's chunks (`tools/bundle.ts`).
 */
export interface WorkerScript {
  readonly module: URL;
  readonly bundled: string;
}

/** Either end of a message channel to a worker thread. */
export interface MessagePortLike {
  postMessage(message: unknown): void;
  onMessage(listener: (message: unknown) => void): void;
  close(): void;
}

/** A signal that ends the process, with its number (exit status 128 + number). */
export interface TerminatingSignal {
  readonly name: "SIGINT" | "SIGTERM" | "SIGHUP";
  readonly number: 2 | 15 | 1;
}

export const TERMINATING_SIGNALS: readonly TerminatingSignal[] = [
  { name: "SIGINT", number: 2 },
  { name: "SIGTERM", number: 15 },
  { name: "SIGHUP", number: 1 },
];

/** Standard output or error. Writes keep their order; a closed pipe (`| head`) drops them quietly. */
export interface StdStream {
  write(data: string | Uint8Array): void;
  /** Streams bytes through with backpressure; rejects with `BrokenPipe` when the reader has gone. */
  writeStream(stream: ReadableStream<Uint8Array>): Promise<void>;
  /** Resolves once everything written so far has been handed to the OS. */
  flush(): Promise<void>;
  readonly isTTY: boolean;
  /** The terminal's width, when this is a terminal. */
  columns(): number | undefined;
  /** Whether the reader has gone (EPIPE). */
  readonly closed: boolean;
}

/** The reader of standard output went away while a stream was written to it. */
export class BrokenPipe extends Error {
  constructor() {
    super("The reader of standard output has gone");
    this.name = "BrokenPipe";
  }
}

/** Standard input. */
export interface StdIn {
  readonly isTTY: boolean;
  /** All of it, as bytes. */
  readAll(): Promise<Uint8Array>;
  /** One line without its end, or undefined at the end of input. */
  readLine(): Promise<string | undefined>;
}

/** What a path is. */
export type FileKind = "file" | "directory" | "symlink" | "fifo" | "char-device" | "block-device" | "socket";

export interface FileInfo {
  readonly kind: FileKind;
  /** Permission bits. */
  readonly mode: number;
  readonly size: number;
  readonly mtimeMs: number;
}

/** One entry of a directory listing. */
export interface DirEntry {
  readonly name: string;
  readonly kind: FileKind;
}

/**
 * Files, with storectl's rules: writes are atomic where the target is a regular file, errors are
 * `StoreCtlError`s with code `filesystem` that name the path and the fix.
 */
export interface FileSystem {
  readFile(path: string): Promise<Uint8Array>;
  readTextFile(path: string): Promise<string>;
  /** The content, or undefined when the file does not exist. */
  readTextFileIfExists(path: string): Promise<string | undefined>;
  /** What `path` is (symlinks followed), or undefined when nothing is there. */
  info(path: string): Promise<FileInfo | undefined>;
  /** The absolute path with every symlink resolved; fails when nothing is there. */
  realPath(path: string): Promise<string>;
  /** The entries of a directory, names and kinds; a symlink is listed as `symlink`, not followed. */
  readDir(path: string): Promise<DirEntry[]>;
  /** Writes a `.partial` file beside `path`, then renames it over `path`. */
  writeFileAtomic(path: string, data: string | Uint8Array, options?: { mode?: number }): Promise<void>;
  /** Appends `text` to `path`, created with `mode` when missing (a log: each call one whole write). */
  appendTextFile(path: string, text: string, options?: { mode?: number }): Promise<void>;
  /**
   * Streams `body` to `path`, resolving with the byte count: atomically for a new or regular
   * file (through a symlink, its target is replaced), straight into a FIFO or character device;
   * anything else is refused. Never holds more than a chunk in memory.
   */
  writeStream(path: string, body: ReadableStream<Uint8Array>, options?: { mode?: number }): Promise<number>;
  /** Streams a file's bytes, a chunk at a time. */
  readStream(path: string): Promise<ReadableStream<Uint8Array<ArrayBuffer>>>;
  /** Bytes an unprivileged user can still write on the file system of `dir`; undefined when unknown. */
  freeSpace(dir: string): Promise<number | undefined>;
  /** Fails unless a file can be created in `dir` (tried for real, then removed). */
  checkWritableDirectory(dir: string): Promise<void>;
  /** Deletes the `.partial` files of writes in progress (when the process is interrupted). */
  removePartialFiles(): Promise<void>;
  /**
   * Takes an exclusive lock beside `path` (`path.lock`), waiting up to `timeoutMs`; resolves
   * with the function that releases it.
   */
  lock(path: string, options?: { timeoutMs?: number }): Promise<() => Promise<void>>;
}

/** What a listener needs: a fetch handler and where to listen. */
export interface ServeOptions {
  readonly fetch: (request: Request) => Response | Promise<Response>;
  /** Defaults to 127.0.0.1: nothing here should listen beyond loopback unless asked. */
  readonly hostname?: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** PEM certificate and key: serve HTTPS instead of HTTP. */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Connection ceiling, client timeouts, shutdown deadline; each defaults (`DEFAULT_SERVE_LIMITS`). */
  readonly limits?: Partial<ServeLimits>;
  /** Where the listener reports refused connections, timeouts and clients gone mid-body. Default: nowhere. */
  readonly log?: ServeLog;
  /**
   * Reads a small body whole before `fetch` runs (the Deno listener; Node's guards every body), for an app that takes it from `prereadBody`
   * (an app that reads the request's own body must leave this off: the body is used by then).
   * Default false.
   */
  readonly prereadSmallBodies?: boolean;
}

/** A running listener. */
export interface Listener {
  readonly port: number;
  readonly url: string;
  /** The connection ceiling in force (`limits.maxConnections`, lowered to fit the open-file limit). */
  readonly maxConnections: number;
  /**
   * Stops accepting connections, closes idle ones, lets requests in flight finish for up to
   * `limits.shutdownTimeoutMs`, then closes the rest; resolves once every connection is closed.
   */
  close(): Promise<void>;
}
