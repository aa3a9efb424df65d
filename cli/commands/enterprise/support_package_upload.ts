import { type FilesKey, resolveFilesKey } from "../../../lib/config/mod.ts";
import { mask, StoreCtlError } from "../../../lib/errors/mod.ts";
import { formatSize } from "../../../lib/output/mod.ts";
import { DEFAULT_RETRY_POLICY } from "../../../lib/http/mod.ts";
import {
  DEFAULT_FILES_API_URL,
  DEFAULT_FILES_FOLDER,
  DEFAULT_PART_BYTES,
  uploadPackage,
} from "../../../lib/support_package/mod.ts";
import type { Factory } from "../../factory.ts";
import { statusLine } from "../../framework/status_line.ts";

/** The upload key in the spec's order, or a config error (exit 3) saying how to set one. */
export async function requireFilesKey(f: Factory): Promise<FilesKey> {
  const { doc } = await f.config();
  const found = await resolveFilesKey({ doc, env: f.ctx.env, profile: f.globals.profile, keyring: f.ctx.keyring });
  if (!found) {
    throw new StoreCtlError("config", "No file-transfer API key for --upload", {
      tips: [
        "Store one with: ctl files-key set <key> (add --use-keyring to keep it in the system keyring)",
        "Or set STORE_ENTERPRISE_FILES_API_KEY",
      ],
    });
  }
  f.logger.log("debug", "config", `files_api_key ${mask(found.key)} from ${found.source}`);
  return found;
}

/** Where and how uploads go: `STORE_FILES_API_URL`, `STORE_FILES_FOLDER`, `STORE_FILES_PART_SIZE`. */
export function uploadTarget(env: Readonly<Record<string, string | undefined>>) {
  const partBytes = Number(env.STORE_FILES_PART_SIZE || DEFAULT_PART_BYTES);
  if (!Number.isSafeInteger(partBytes) || partBytes < 1) {
    throw new StoreCtlError(
      "config",
      `STORE_FILES_PART_SIZE must be a number of bytes; got '${env.STORE_FILES_PART_SIZE}'`,
    );
  }
  return {
    baseUrl: env.STORE_FILES_API_URL || DEFAULT_FILES_API_URL,
    folder: env.STORE_FILES_FOLDER || DEFAULT_FILES_FOLDER,
    partBytes,
  };
}

/** Uploads `body` as `name`, with a status line on a terminal; returns the result's `upload` field. */
export async function uploadBody(
  f: Factory,
  key: FilesKey,
  body: ReadableStream<Uint8Array>,
  name: string,
  options: { size?: number; signal: AbortSignal },
): Promise<Record<string, unknown>> {
  const target = uploadTarget(f.ctx.env);
  const line = statusLine(f.ctx.stderr);
  try {
    const result = await uploadPackage({
      ...target,
      key: key.key,
      name,
      body,
      size: options.size,
      signal: options.signal,
      settings: {
        transport: await f.ctx.createTransport({ env: f.ctx.env }),
        timeoutMs: f.globals.timeout * 1000,
        retry: { ...DEFAULT_RETRY_POLICY, retries: f.globals.retries },
        logger: f.logger,
      },
      onPart: (part, sent) =>
        line.show(
          `Uploading ${name}: part ${part}, ${formatSize(sent)}${
            options.size ? ` of ${formatSize(options.size)}` : ""
          }`,
        ),
      onPartRetry: (part, attempt, error) => {
        line.clear();
        f.ctx.stderr.write(`Part ${part} failed (${error.message}); sending it again (attempt ${attempt})\n`);
      },
    });
    line.clear();
    return {
      remote_path: result.remotePath,
      size: result.size,
      sha256: result.sha256,
      parts: result.parts,
      service: target.baseUrl,
    };
  } finally {
    line.clear();
  }
}
