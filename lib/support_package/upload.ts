import { StoreCtlError } from "../errors/mod.ts";
import { type ClientSettings, createHttpClient, type HttpClient, isTransient, readJson } from "../http/mod.ts";
import { hex } from "../text/mod.ts";

/** Where uploads go unless `STORE_FILES_API_URL` says otherwise. */
export const DEFAULT_FILES_API_URL = "https://files.example.com/api/rest/v1";
/** The fixed remote folder of support uploads unless `STORE_FILES_FOLDER` says otherwise. */
export const DEFAULT_FILES_FOLDER = "support-uploads";
/** Bytes per part: one part is held in memory (to hash it and to send it again on a retry). */
export const DEFAULT_PART_BYTES = 8 * 1024 * 1024;
/** Attempts per part, each with a fresh upload URL, on top of the HTTP client's own retries. */
const PART_ATTEMPTS = 3;

/** What `uploadPackage` needs. */
export interface UploadOptions {
  /** The file-transfer REST base, e.g. `https://files.example.com/api/rest/v1`. */
  readonly baseUrl: string;
  /** Sent as `X-FilesAPI-Key`; never logged. */
  readonly key: string;
  readonly folder: string;
  readonly name: string;
  readonly body: ReadableStream<Uint8Array>;
  /** Announced to begin_upload when known (a file on disk). */
  readonly size?: number;
  readonly partBytes?: number;
  /** Transport, timeouts, retry policy and retry notices: the ones every other request gets. */
  readonly settings: ClientSettings;
  readonly signal?: AbortSignal;
  /** After each part: its number and the bytes sent so far. */
  readonly onPart?: (part: number, sent: number) => void;
  /** Before a part is sent again. */
  readonly onPartRetry?: (part: number, attempt: number, error: StoreCtlError) => void;
}

/** Where the file went. */
export interface UploadResult {
  readonly remotePath: string;
  readonly size: number;
  /** SHA-256 over the parts' SHA-256s, `<hex>-<parts>`, as the service computed and checked it. */
  readonly sha256: string;
  readonly parts: number;
}

interface UploadPart {
  readonly ref: string;
  readonly upload_uri: string;
  readonly http_method?: string;
  readonly headers?: Record<string, string>;
}

/**
 * Uploads a stream to the file-transfer service in parts: `begin_upload` (with the size when
 * known) gives each part's URL, each part is `PUT` with its SHA-256 (retried with a fresh URL on
 * a server or network failure), and `action=end` makes the file, checked by its size and the
 * SHA-256 over the parts' SHA-256s. Memory holds one part, whatever the size.
 *
 * @example
 * ```ts
 * import { uploadPackage } from "./upload.ts";
 * import { fetchTransport } from "../http/mod.ts";
 * const result = await uploadPackage({
 *   baseUrl: "https://files.example.com/api/rest/v1",
 *   key: "k",
 *   folder: "support-uploads",
 *   name: "support-package-cluster-20260131T080509.tar.gz",
 *   body: new Blob(["…"]).stream(),
 *   settings: { transport: fetchTransport(fetch), timeoutMs: 30_000 },
 * });
 * ```
 */
export async function uploadPackage(options: UploadOptions): Promise<UploadResult> {
  const remotePath = `${options.folder.replace(/^\/+|\/+$/g, "")}/${options.name}`;
  const encoded = remotePath.split("/").map(encodeURIComponent).join("/");
  const api = createHttpClient({
    ...options.settings,
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    authHeaders: { "x-filesapi-key": options.key },
    identity: "the file-transfer API key",
  });
  // Part URLs may point elsewhere (object storage): they get no API key, and their query (a
  // presigned signature) never reaches logs, retry notices or errors.
  const { logger, onRetry } = options.settings;
  const parts = createHttpClient({
    ...options.settings,
    baseUrl: "",
    authHeaders: {},
    identity: "the upload URL",
    logger: logger &&
      { enabled: logger.enabled, log: (level, module, text) => logger.log(level, module, redact(text)) },
    onRetry: onRetry && ((event) => onRetry({ ...event, url: redact(event.url), reason: redact(event.reason) })),
  });
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const response = await api.send({
      method: "POST",
      path,
      body: JSON.stringify(body),
      headers: { "content-type": "application/json" },
      signal: options.signal,
    });
    return await readJson<T>(response, `POST ${path}`);
  };
  const begin = async (part: number, ref?: string): Promise<UploadPart> => {
    const body = ref === undefined
      ? { mkdir_parents: true, ...(options.size !== undefined && { size: options.size }) }
      : { ref, part, mkdir_parents: true };
    const [first] = await post<UploadPart[]>(`/file_actions/begin_upload/${encoded}`, body);
    if (!first?.upload_uri || !first.ref) {
      throw new StoreCtlError("api", "The file-transfer service answered begin_upload without an upload URL");
    }
    return first;
  };

  let target = await begin(1);
  const ref = target.ref;
  const digests: Uint8Array[] = [];
  let sent = 0;
  for await (const bytes of inParts(options.body, options.partBytes ?? DEFAULT_PART_BYTES)) {
    const number = digests.length + 1;
    if (number > 1) target = await begin(number, ref);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    await sendPart(parts, target, bytes, hex(digest), options, number, () => begin(number, ref));
    digests.push(digest);
    sent += bytes.length;
    options.onPart?.(number, sent);
  }
  if (digests.length === 0) { // an empty file is one empty part
    const empty = new Uint8Array(0);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", empty));
    await sendPart(parts, target, empty, hex(digest), options, 1, () => begin(1, ref));
    digests.push(digest);
  }
  const all = new Uint8Array(digests.length * 32);
  digests.forEach((d, i) => all.set(d, i * 32));
  const sha256 = `${hex(new Uint8Array(await crypto.subtle.digest("SHA-256", all)))}-${digests.length}`;
  const done = await post<{ size?: number; sha256?: string }>(`/files/${encoded}`, {
    action: "end",
    ref,
    size: sent,
    sha256,
  });
  if (done?.size !== undefined && done.size !== sent) {
    throw new StoreCtlError("api", `The file-transfer service stored ${done.size} bytes of ${sent} sent`);
  }
  return { remotePath, size: sent, sha256, parts: digests.length };
}

async function sendPart(
  client: HttpClient,
  first: UploadPart,
  bytes: Uint8Array<ArrayBuffer>,
  digest: string,
  options: UploadOptions,
  number: number,
  again: () => Promise<UploadPart>,
): Promise<void> {
  let target = first;
  for (let attempt = 1;; attempt++) {
    try {
      const response = await client.send({
        method: target.http_method ?? "PUT",
        path: target.upload_uri,
        headers: { ...target.headers, "content-type": "application/octet-stream", "x-content-sha256": digest },
        body: bytes,
        signal: options.signal,
      });
      await response.body?.cancel();
      return;
    } catch (caught) {
      const error = caught instanceof StoreCtlError
        ? new StoreCtlError(caught.code, redact(caught.message), { status: caught.status, tips: caught.tips })
        : caught;
      if (!isTransient(error) || attempt >= PART_ATTEMPTS || options.signal?.aborted) throw error;
      options.onPartRetry?.(number, attempt + 1, error);
      target = await again();
    }
  }
}

/** Text with every URL's query replaced by `?…`: presigned upload URLs carry their signature there. */
export function redact(text: string): string {
  return text.replace(/(https?:\/\/[^\s?]+)\?[^\s)]*/g, "$1?…");
}

/** The stream cut into parts of `size` bytes (the last one shorter). */
async function* inParts(body: ReadableStream<Uint8Array>, size: number): AsyncGenerator<Uint8Array<ArrayBuffer>> {
  let part = new Uint8Array(size);
  let filled = 0;
  for await (const chunk of body) {
    for (let offset = 0; offset < chunk.length;) {
      const n = Math.min(size - filled, chunk.length - offset);
      part.set(chunk.subarray(offset, offset + n), filled);
      filled += n;
      offset += n;
      if (filled === size) {
        yield part;
        part = new Uint8Array(size);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield part.slice(0, filled);
}
