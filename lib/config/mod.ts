/**
 * Profiles and credentials: the TOML config file, `${VAR}` expansion, `keyring:` references,
 * and resolution with the spec's priority (environment, profile, flags).
 *
 * @example
 * ```ts
 * import { configPath, parseConfig, resolveCredentials } from "./lib/config/mod.ts";
 * const doc = await parseConfig(text, path);
 * const creds = await resolveCredentials({ deployment: "enterprise", doc, env });
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
export { maskUrl, parseBaseUrl, type SplitUrl } from "./url.ts";
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
