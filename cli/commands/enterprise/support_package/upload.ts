import { type FilesKey, resolveFilesKey } from "../../../../lib/config/mod.ts";
import { mask, StoreCtlError } from "../../../../lib/errors/mod.ts";
import {
  DEFAULT_FILES_API_URL,
  DEFAULT_FILES_FOLDER,
  DEFAULT_PART_BYTES,
} from "../../../../lib/support_package/mod.ts";
import type { Factory } from "../../../factory.ts";

/** The upload key in the specification's order, or a config error (exit 3) saying how to set one. */
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
