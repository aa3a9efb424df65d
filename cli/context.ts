import type { Keyring } from "../lib/config/mod.ts";
import { StoreCtlError } from "../lib/errors/mod.ts";
import type { Transport, TransportOptions } from "../lib/http/mod.ts";
import type { FileSystem, Listener, ServeOptions, StdIn, StdStream, TerminatingSignal } from "../lib/runtime/mod.ts";

/**
 * Every effect `ctl` has, injected so that commands run in-process in tests: with the
 * emulator's fetch handler as the transport, a temporary directory for files, and captured
 * output. Only `cli/start.ts` builds the real one, from the runtime.
 */
export interface CliContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Relative paths on the command line are resolved against this. */
  readonly cwd: string;
  readonly home: string;
  readonly stdin: StdIn;
  readonly stdout: StdStream;
  readonly stderr: StdStream;
  readonly fs: FileSystem;
  readonly keyring: Keyring;
  createTransport(options: TransportOptions): Promise<Transport>;
  /** Asks a yes/no question on the terminal; called only when stdin is a terminal. */
  confirm(question: string): Promise<boolean>;
  /** Aborted, with the signal as its reason, when the user interrupts (Ctrl+C, SIGTERM, SIGHUP). */
  readonly interrupt: AbortSignal;
  /** The time, in milliseconds since the epoch (`Date.now` outside tests): every clock reading of a command. */
  readonly now: () => number;
  /** The runtime's gzip (it holds backpressure on Node); default `CompressionStream`. */
  readonly gzip?: () => ReadableWritablePair<Uint8Array<ArrayBuffer>, BufferSource>;
  /** The runtime's gunzip (on Node, `node:zlib`: faster and flat in memory); default `DecompressionStream`. */
  readonly gunzip?: () => ReadableWritablePair<Uint8Array<ArrayBuffer>, BufferSource>;
  /**
   * Told each new state of a remote operation being waited for (`Task 123: processing-in-progress`),
   * terminal or not: `ctl mcp serve` reports it to its client.
   */
  readonly progress?: (line: string) => void;
  /** Serves HTTP (`ctl mcp serve --http`). */
  readonly serve?: (options: ServeOptions) => Promise<Listener>;
  /** Starts ctl again with `args` in the background (`--no-wait`); resolves with its pid. */
  readonly launchDetached?: (args: readonly string[]) => Promise<number>;
}

/** The process was interrupted by a signal; it exits with 128 + the signal's number. */
export class Interrupted extends Error {
  readonly signal: TerminatingSignal;
  /** What the user should know, e.g. that a remote operation goes on. */
  readonly note?: string;

  constructor(signal: TerminatingSignal, note?: string) {
    super(`Interrupted by ${signal.name}`);
    this.name = "Interrupted";
    this.signal = signal;
    this.note = note;
  }
}

/** Ends a dry run (`cli/dry_run.ts`) once the request it would send is printed; ctl exits 0 on it, saying nothing more. */
export class DryRunStop extends StoreCtlError {
  constructor() {
    super("cancelled", "Dry run: the request above was not sent");
    this.name = "DryRunStop";
  }
}
