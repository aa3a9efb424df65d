import { StoreCtlError } from "../errors/mod.ts";
import { selectProfile } from "./credentials.ts";
import type { ConfigDocument } from "./document.ts";
import { expandVars } from "./expand.ts";
import type { Keyring } from "./keyring.ts";

/** The keyring entry of the upload key: read directly (source 4), and written by `files-key set --use-keyring`. */
export const FILES_KEYRING_ENTRY = "files-api-key";

/** The upload key and where it came from (`STORE_FILES_API_KEY`, `profile 'prod' files_api_key`, …). */
export interface FilesKey {
  readonly key: string;
  readonly source: string;
}

/**
 * The upload key in the specification's order: `STORE_ENTERPRISE_FILES_API_KEY`; the enterprise profile's
 * `files_api_key`; the global `files_api_key`; the keyring entry `files-api-key`;
 * `STORE_FILES_API_KEY`. Config values get `${VAR}` expansion and `keyring:<name>` lookup. An
 * unavailable keyring is skipped for source 4 (it is optional), never for a `keyring:` value.
 *
 * @example
 * ```ts
 * import { resolveFilesKey } from "./files_key.ts";
 * const found = await resolveFilesKey({ doc: { files_api_key: "k-123" }, env: {} });
 * // { key: "k-123", source: "global files_api_key" }
 * ```
 */
export async function resolveFilesKey(input: {
  readonly doc: ConfigDocument;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly profile?: string;
  readonly keyring?: Keyring;
}): Promise<FilesKey | undefined> {
  const { env, doc, keyring } = input;
  if (env.STORE_ENTERPRISE_FILES_API_KEY) {
    return { key: env.STORE_ENTERPRISE_FILES_API_KEY, source: "STORE_ENTERPRISE_FILES_API_KEY" };
  }
  const fromConfig = async (raw: unknown, where: string): Promise<FilesKey | undefined> => {
    if (raw === undefined || raw === null || raw === "") return undefined;
    const value = expandVars(String(raw), env, where);
    if (!value.startsWith("keyring:")) return { key: value, source: where };
    const name = value.slice("keyring:".length);
    if (!keyring) throw new StoreCtlError("config", `${where} uses the keyring, which is not enabled here`);
    const secret = await keyring.get(name);
    if (secret === undefined) {
      throw new StoreCtlError("config", `${where} refers to keyring entry '${name}', which does not exist`, {
        tips: ["Store the key again with: ctl files-key set <key> --use-keyring"],
      });
    }
    return { key: secret, source: `${where} (keyring entry '${name}')` };
  };
  const selected = selectProfile({ deployment: "enterprise", doc, env, profile: input.profile });
  const found =
    (selected && await fromConfig(selected.record.files_api_key, `profile '${selected.name}' files_api_key`)) ??
      await fromConfig(doc.files_api_key, "global files_api_key");
  if (found) return found;
  const stored = await keyring?.get(FILES_KEYRING_ENTRY).catch(() => undefined);
  if (stored) return { key: stored, source: `keyring entry '${FILES_KEYRING_ENTRY}'` };
  if (env.STORE_FILES_API_KEY) return { key: env.STORE_FILES_API_KEY, source: "STORE_FILES_API_KEY" };
  return undefined;
}
