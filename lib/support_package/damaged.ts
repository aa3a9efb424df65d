import { StoreCtlError } from "../errors/mod.ts";

/**
 * A support package that is not a whole `tar.gz`: cut short, corrupt (a bad CRC or header
 * checksum), empty, or not gzip at all. Its code is `damaged` (exit 14 in ctl): the input is at
 * fault, not the network, the disk or ctl.
 *
 * @example
 * ```ts
 * import { DamagedPackageError } from "./damaged.ts";
 * const error = new DamagedPackageError("it is empty (0 bytes)", { subject: "pkg.tar.gz" });
 * error.message; // "pkg.tar.gz is damaged: it is empty (0 bytes)"
 * ```
 */
export class DamagedPackageError extends StoreCtlError {
  /** What is wrong, in words: `it is not a complete gzip stream (unexpected end of file)`. */
  readonly problem: string;

  constructor(problem: string, options: { subject?: string; cause?: unknown } = {}) {
    super("damaged", `${options.subject ?? "The support package"} is damaged: ${problem}`, {
      cause: options.cause,
      reason: "package_damaged",
      details: { problem },
      tips: ["A cut or corrupted transfer is the usual cause: download or copy the package again"],
    });
    this.name = "DamagedPackageError";
    this.problem = problem;
  }
}

/**
 * What is wrong with a package whose `stage` (its gzip stream or the tar archive inside) failed
 * with `error`, after `bytesRead` bytes of it.
 *
 * @example
 * ```ts
 * import { damageProblem } from "./damaged.ts";
 * damageProblem("tar", new Error("Tar archive is truncated."), 120); // "it is not a complete tar archive (tar archive is truncated)"
 * ```
 */
export function damageProblem(stage: "gzip" | "tar", error: unknown, bytesRead: number): string {
  if (bytesRead === 0) return "it is empty (0 bytes)";
  const text = (error instanceof Error ? error.message : String(error)).replace(/\.$/, "");
  const cause = text.charAt(0).toLowerCase() + text.slice(1);
  return `it is not a complete ${stage === "gzip" ? "gzip stream" : "tar archive"} (${cause})`;
}

/**
 * `readable`, failing with `convert(error)` where it would fail with `error`: a stage of a pipe
 * chain says which errors are its own.
 *
 * @example
 * ```ts
 * import { convertingErrors } from "./damaged.ts";
 * const stream = convertingErrors(new Blob([]).stream(), (error) => new Error("wrapped", { cause: error }));
 * ```
 */
export function convertingErrors<T>(
  readable: ReadableStream<T>,
  convert: (error: unknown) => unknown,
): ReadableStream<T> {
  const reader = readable.getReader();
  return new ReadableStream<T>({
    async pull(controller) {
      let next: ReadableStreamReadResult<T>;
      try {
        next = await reader.read();
      } catch (error) {
        throw convert(error);
      }
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
}
