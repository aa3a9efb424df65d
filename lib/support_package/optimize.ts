import type { createTarPacker, ParsedTarEntry, TarHeader } from "modern-tar";
import { StoreCtlError } from "../errors/mod.ts";
import { webGunzip } from "../runtime/mod.ts";
import { convertingErrors, DamagedPackageError, damageProblem } from "./damaged.ts";
import { formatSize } from "../output/mod.ts";
import { LogTail } from "./log_tail.ts";
import { guardTarMetadata, MAX_META_BYTES, OVERSIZED_META_KEY } from "./tar_meta_guard.ts";
import {
  currentLogOf,
  isLogFile,
  isNestedArchive,
  linkOnPath,
  MAX_NAME_BYTES,
  normalizeName,
  pathKey,
  unsafePathReason,
  utf8Length,
} from "./rules.ts";
import { hex } from "../text/mod.ts";

/** Lines kept per log file unless told otherwise (the specification's `--log-lines` default). */
export const DEFAULT_LOG_LINES = 1000;

/** Files up to this size (after truncation) are checked for byte-identical earlier copies. */
export const DEDUP_MAX_BYTES = 1024 * 1024;

/** A gzip or gunzip transform. */
export type ByteTransform = () => ReadableWritablePair<Uint8Array<ArrayBuffer>, BufferSource>;

/** One thing `optimize` did to an entry, for the verbose listing. */
export interface OptimizeAction {
  readonly action: "truncated" | "removed" | "linked" | "rejected";
  /** The entry's name as the archive has it; one over 4096 bytes as its first 100 characters and its size. */
  readonly name: string;
  /** Why, in words (`kept the last 1000 of 52310 lines`, `nested archive`). */
  readonly detail: string;
}

/** What `optimize` reports once the output has been read to its end. */
export interface OptimizeStats {
  /** Compressed bytes read. */
  readonly bytesBefore: number;
  /** Compressed bytes written. */
  readonly bytesAfter: number;
  /** `(before - after) / before`, in percent with one decimal (0 for an empty input). */
  readonly reductionPercent: number;
  /** Regular files read. */
  readonly filesProcessed: number;
  /** Log files cut to their last lines. */
  readonly filesTruncated: number;
  /** Files left out: nested archives, rotated copies, duplicates (stored as hard links). */
  readonly filesRemoved: number;
  /** Entries refused by rule 1 (an unsafe name, a path through a symbolic link, …): never written. */
  readonly entriesRejected: number;
}

/** Options of `createOptimizer`. */
export interface OptimizeOptions {
  /** Lines kept per log file; default 1000. */
  readonly logLines?: number;
  /**
   * Default `webGunzip()` (a `DecompressionStream` fed in small pieces). Memory stays flat only
   * with a gunzip that hands out chunks of bounded size, as the runtimes' do.
   */
  readonly gunzip?: ByteTransform;
  /** Default `CompressionStream("gzip")`; pass the runtime's, which holds backpressure on Node. */
  readonly gzip?: ByteTransform;
  /** Called for each action, in archive order (the verbose mode prints them). */
  readonly onAction?: (action: OptimizeAction) => void;
}

/** A `tar.gz → tar.gz` transform with the statistics of its run. */
export interface Optimizer extends ReadableWritablePair<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>> {
  /** Resolves once the output has been read to its end; rejects when the transform failed. */
  readonly stats: Promise<OptimizeStats>;
}

/**
 * Shrinks a support package as a stream, `tar.gz` in, `tar.gz` out, holding at most one small
 * file or one log tail in memory whatever the package's size. A package that is not a whole
 * `tar.gz` fails with `DamagedPackageError`; the input's own failure passes through as it is.
 * The rules, in order, per entry:
 *
 * 1. an entry is rejected when its name (or a hard link's target) is absolute, has a `..`
 *    component, is longer than 4096 bytes, or is, or lies under, a symbolic link written earlier
 *    (extracting it would follow the link); also a symbolic link whose target is longer than
 *    4096 bytes, an entry with GNU sparse-file records (`GNU.sparse.*`, which may rename it), and
 *    one whose metadata (PAX header, GNU long name) exceeds 64 KiB (never read: `tar_meta_guard.ts`);
 * 2. a `.gz`/`.tgz` file is removed (nested archives);
 * 3. a rotated log `x.log.<n>` is removed when `x.log` came earlier in the same archive;
 * 4. a log (`*.log`, `*.log.<n>`) longer than `logLines` lines keeps its last lines, after a
 *    one-line marker saying how many were cut;
 * 5. a file of at most 1 MiB (after rule 4) with the same size and SHA-256 as an earlier kept
 *    file becomes a hard link to it (the path still extracts; the bytes are stored once);
 * 6. everything else (directories, links, larger files) is copied as it is, with its mode,
 *    mtime, owner and PAX records; links are never followed. A hard link to a removed file is
 *    removed with it.
 *
 * @example
 * ```ts
 * import { createOptimizer } from "./optimize.ts";
 * const optimizer = createOptimizer({ logLines: 500, onAction: (a) => console.error(a.action, a.name) });
 * const input = new Blob([]).stream(); // a package's bytes, e.g. a download
 * const output = input.pipeThrough(optimizer); // write it to a file or an upload
 * ```
 */
export function createOptimizer(options: OptimizeOptions = {}): Optimizer {
  const logLines = options.logLines ?? DEFAULT_LOG_LINES;
  if (!Number.isSafeInteger(logLines) || logLines < 1) {
    throw new RangeError(`logLines must be a whole number of at least 1, not ${logLines}`);
  }
  let bytesBefore = 0;
  let bytesAfter = 0;
  const counts = { processed: 0, truncated: 0, removed: 0, rejected: 0 };
  const counter = new TransformStream<Uint8Array<ArrayBuffer>, BufferSource>({
    transform(chunk, controller) {
      bytesBefore += chunk.length;
      controller.enqueue(chunk);
    },
  });
  const gunzip = options.gunzip?.() ?? webGunzip();
  const gzip = options.gzip?.() ?? new CompressionStream("gzip");
  // The tar library loads with the first optimization: ctl's other commands never need it.
  const output = new TransformStream<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>>();

  let resolveStats!: (stats: OptimizeStats) => void;
  let rejectStats!: (error: unknown) => void;
  const stats = new Promise<OptimizeStats>((resolve, reject) => {
    resolveStats = resolve;
    rejectStats = reject;
  });
  stats.catch(() => {}); // the output stream reports the failure too; a caller may read only that

  // The input's own failure (a dropped download, an interrupt) passes through as it is; what the
  // gunzip or the tar decoder fail with is damage, named by the stage that found it.
  let inputFailure: { reason: unknown } | undefined;
  const input = counter.writable.getWriter();
  const writable = new WritableStream<Uint8Array<ArrayBuffer>>({
    write: (chunk) => input.write(chunk),
    close: () => input.close(),
    abort(reason) {
      inputFailure = { reason };
      return input.abort(reason);
    },
  });
  const damage = (stage: "gzip" | "tar") => (error: unknown) =>
    error instanceof StoreCtlError || (inputFailure !== undefined && error === inputFailure.reason)
      ? error
      : new DamagedPackageError(damageProblem(stage, error, bytesBefore), { cause: error });

  const run = new EntryRules(logLines, counts, options.onAction ?? (() => {}));
  (async () => {
    const { createTarDecoder, createTarPacker } = await import("modern-tar");
    const tar = convertingErrors(counter.readable.pipeThrough(gunzip), damage("gzip"));
    const entries = convertingErrors(
      tar.pipeThrough(guardTarMetadata()).pipeThrough(createTarDecoder({ strict: true })),
      damage("tar"),
    );
    const packer = createTarPacker();
    packer.readable.pipeThrough(gzip).pipeTo(output.writable).catch(() => {}); // errors reach the reader
    const reader = entries.getReader();
    try {
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        const body = convertingErrors(next.value.body, damage("tar"));
        await run.entry({ header: next.value.header, body }, packer.controller);
      }
      packer.controller.finalize();
    } catch (error) {
      reader.cancel(error).catch(() => {});
      packer.controller.error(error);
      rejectStats(error);
    }
  })().catch((error) => {
    output.writable.abort(error).catch(() => {});
    counter.readable.cancel(error).catch(() => {});
    rejectStats(error);
  });

  const readable = output.readable.pipeThrough(
    new TransformStream<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>>({
      transform(chunk, controller) {
        bytesAfter += chunk.length;
        controller.enqueue(chunk);
      },
      flush() {
        const reduction = bytesBefore === 0 ? 0 : Math.round(((bytesBefore - bytesAfter) / bytesBefore) * 1000) / 10;
        resolveStats({
          bytesBefore,
          bytesAfter,
          reductionPercent: reduction,
          filesProcessed: counts.processed,
          filesTruncated: counts.truncated,
          filesRemoved: counts.removed,
          entriesRejected: counts.rejected,
        });
      },
      cancel(reason) {
        rejectStats(reason);
      },
    }),
  );
  return { writable, readable, stats };
}

type PackerController = ReturnType<typeof createTarPacker>["controller"];

/** The per-entry decisions, with what they remember of earlier entries (names and small hashes). */
class EntryRules {
  readonly #logLines: number;
  readonly #counts: { processed: number; truncated: number; removed: number; rejected: number };
  readonly #report: (action: OptimizeAction) => void;
  /** Names of the logs written so far, for rule 3. */
  readonly #logs = new Set<string>();
  /** Names left out, so hard links to them go too. */
  readonly #gone = new Set<string>();
  /** `size:sha256` of small files written, to the first name written with it. */
  readonly #seen = new Map<string, string>();
  /** Symbolic links written so far (`pathKey` to the name): later entries must not go through them. */
  readonly #links = new Map<string, string>();

  constructor(
    logLines: number,
    counts: { processed: number; truncated: number; removed: number; rejected: number },
    report: (action: OptimizeAction) => void,
  ) {
    this.#logLines = logLines;
    this.#counts = counts;
    this.#report = report;
  }

  async entry(entry: ParsedTarEntry, out: PackerController): Promise<void> {
    const { header } = entry;
    const type = header.type ?? "file";
    const refusal = this.#refusal(header, type);
    if (refusal) {
      this.#counts.rejected++;
      // A name over the limit is never a link's target (that would be over it too): not kept.
      if (header.name.length <= MAX_NAME_BYTES) this.#gone.add(normalizeName(header.name));
      this.#report({ action: "rejected", name: shownName(header.name), detail: refusal });
      return drain(entry.body);
    }
    const name = normalizeName(header.name);
    if (type === "symlink") this.#links.set(pathKey(header.name), header.name);
    if (type === "link" && this.#gone.has(normalizeName(header.linkname ?? ""))) {
      this.#counts.removed++;
      this.#gone.add(name);
      this.#report({ action: "removed", name: header.name, detail: `hard link to removed ${header.linkname}` });
      return drain(entry.body);
    }
    if (type !== "file") return write(out, header, entry.body);

    this.#counts.processed++;
    if (isNestedArchive(name)) return this.#remove(entry, name, "nested archive");
    const current = currentLogOf(name);
    if (current !== undefined && this.#logs.has(current)) {
      return this.#remove(entry, name, `rotated copy of ${current}`);
    }
    if (isLogFile(name)) {
      this.#logs.add(name);
      return this.#log(entry, out);
    }
    if (header.size > DEDUP_MAX_BYTES) return write(out, header, entry.body);
    const bytes = new Uint8Array(await new Response(entry.body).arrayBuffer());
    return this.#small(header, bytes, header.size, out);
  }

  /** Rule 1: why the entry must not be written, or undefined. */
  #refusal(header: TarHeader, type: string): string | undefined {
    const metadata = header.pax?.[OVERSIZED_META_KEY];
    if (metadata !== undefined) {
      return `metadata (a PAX header or GNU long name) of ${metadata} bytes, over ${MAX_META_BYTES}`;
    }
    const name = unsafePathReason(header.name) ?? throughLink(header.name, this.#links);
    if (name) return `unsafe name: ${name}`;
    const target = type === "link"
      ? unsafePathReason(header.linkname ?? "") ?? throughLink(header.linkname ?? "", this.#links)
      : type === "symlink" && utf8Length(header.linkname ?? "") > MAX_NAME_BYTES
      ? `longer than ${MAX_NAME_BYTES} bytes`
      : undefined;
    if (target) return `unsafe link target: ${target}`;
    const sparse = Object.keys(header.pax ?? {}).filter((key) => key.startsWith("GNU.sparse."));
    if (sparse.length > 0) {
      return `GNU sparse-file records (${sparse.join(", ")}): extractors would take the name and data from them`;
    }
    return undefined;
  }

  async #remove(entry: ParsedTarEntry, name: string, why: string): Promise<void> {
    this.#counts.removed++;
    this.#gone.add(name);
    this.#report({ action: "removed", name: entry.header.name, detail: why });
    await drain(entry.body);
  }

  async #log(entry: ParsedTarEntry, out: PackerController): Promise<void> {
    const tail = new LogTail(this.#logLines);
    const reader = entry.body.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) tail.push(next.value);
    const result = tail.finish();
    let bytes = result.bytes;
    if (result.linesCut > 0) {
      this.#counts.truncated++;
      const kept = result.totalLines - result.linesCut;
      const marker = new TextEncoder().encode(
        `[storectl optimize: ${result.linesCut} earlier lines cut, last ${kept} of ${result.totalLines} kept]\n`,
      );
      bytes = new Uint8Array(marker.length + result.bytes.length);
      bytes.set(marker);
      bytes.set(result.bytes, marker.length);
      this.#report({
        action: "truncated",
        name: entry.header.name,
        detail: `kept the last ${kept} of ${result.totalLines} lines (${formatSize(entry.header.size)} → ${
          formatSize(bytes.length)
        })`,
      });
    }
    if (bytes.length > DEDUP_MAX_BYTES) return writeBytes(out, entry.header, bytes);
    return this.#small(entry.header, bytes, entry.header.size, out);
  }

  /** Rule 5: the first copy is written, later ones become hard links to it. */
  async #small(header: TarHeader, bytes: Uint8Array<ArrayBuffer>, sizeBefore: number, out: PackerController) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const key = `${sizeBefore}:${bytes.length}:${hex(digest)}`;
    const first = this.#seen.get(key);
    if (first === undefined) {
      this.#seen.set(key, header.name);
      return writeBytes(out, header, bytes);
    }
    this.#counts.removed++;
    this.#report({ action: "linked", name: header.name, detail: `byte-identical to ${first}: stored as a hard link` });
    const pax = header.pax ? withoutKeys(header.pax, ["size", "linkpath"]) : undefined;
    return writeBytes(out, { ...header, pax, type: "link", linkname: first, size: 0 }, new Uint8Array(0));
  }
}

/** Why `name` (or a hard link's target) would be reached through a symbolic link written earlier. */
function throughLink(name: string, links: ReadonlyMap<string, string>): string | undefined {
  const on = linkOnPath(name, links);
  return on && `${on.under ? "under " : ""}the symbolic link ${on.link} (an earlier entry)`;
}

/** A name for the listing: one over the length limit is cut, with its size. */
function shownName(name: string): string {
  if (name.length <= MAX_NAME_BYTES && utf8Length(name) <= MAX_NAME_BYTES) return name;
  return `${name.slice(0, 100)}… (${utf8Length(name)} bytes)`;
}

/** Copies an entry as it is, streaming its body. */
async function write(out: PackerController, header: TarHeader, body: ReadableStream<Uint8Array>): Promise<void> {
  const sink = out.add(header);
  if (header.size > 0 && header.type !== "link" && header.type !== "symlink" && header.type !== "directory") {
    await body.pipeTo(sink);
  } else {
    await drain(body);
    await sink.close();
  }
}

async function writeBytes(out: PackerController, header: TarHeader, bytes: Uint8Array<ArrayBuffer>): Promise<void> {
  const pax = header.pax ? withoutKeys(header.pax, ["size"]) : undefined;
  const writer = out.add({ ...header, pax, size: bytes.length }).getWriter();
  if (bytes.length > 0) await writer.write(bytes);
  await writer.close();
}

function withoutKeys(record: Record<string, string>, keys: readonly string[]): Record<string, string> | undefined {
  const copy = { ...record };
  for (const key of keys) delete copy[key];
  return Object.keys(copy).length > 0 ? copy : undefined;
}

/** Reads a body to its end: cancelling a tar entry's body stalls the decoder. */
async function drain(body: ReadableStream<Uint8Array>): Promise<void> {
  const reader = body.getReader();
  while (!(await reader.read()).done) { /* discard */ }
}
