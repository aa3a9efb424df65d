/**
 * Profiles and credentials: the TOML config file, `${VAR}` expansion, `keyring:` references,
 * and resolution with the specification's priority (environment, profile, flags).
 *
 * @example
 * ```ts
 * import { configPath, parseConfig, resolveCredentials } from "./mod.ts";
 * const env = { STORE_ENTERPRISE_PASSWORD: "p@ss" };
 * const path = configPath(env, "/home/me");
 * const doc = await parseConfig('[profiles.lab]\ndeployment_type = "enterprise"\nurl = "https://lab:9443"\nusername = "admin"\n', path);
 * const creds = await resolveCredentials({ deployment: "enterprise", doc, env });
 * console.log(creds.sources); // where each value came from
 * ```
 *
 * @module
 */
export {
  type ConfigDocument,
  type Deployment,
  parseConfig,
  type ProfileRecord,
  SECRET_KEYS,
  serializeConfig,
} from "./document.ts";
export { expandVars } from "./expand.ts";
export {
  configPath,
  deploymentOf,
  isReference,
  listProfiles,
  maskSecrets,
  type ProfileSummary,
  removeProfile,
  requireProfile,
  setDefault,
  setProfile,
  validateProfiles,
} from "./profiles.ts";
export { cloudUrlWithVersion, maskUrl, parseBaseUrl, type SplitUrl } from "./url.ts";
export {
  type CloudCredentials,
  type Credentials,
  type EnterpriseCredentials,
  profilesOfType,
  resolveCredentials,
  type ResolveInput,
  selectProfile,
} from "./credentials.ts";
export { type Keyring, systemKeyring } from "./keyring.ts";
export { CONFIG_VERSION, configVersion, migrateConfig } from "./version.ts";
export { FILES_KEYRING_ENTRY, type FilesKey, resolveFilesKey } from "./files_key.ts";
