import { mask, StoreCtlError } from "../errors/mod.ts";
import { type ConfigDocument, type Deployment, type ProfileRecord, SECRET_KEYS } from "./document.ts";
import { maskUrl } from "./url.ts";

/** Where the config lives: `--config-file`, `STORE_CONFIG_FILE`, then the XDG location. */
export function configPath(env: Readonly<Record<string, string | undefined>>, home: string, override?: string): string {
  if (override) return override;
  if (env.STORE_CONFIG_FILE) return env.STORE_CONFIG_FILE;
  const base = env.XDG_CONFIG_HOME || `${home}/.config`;
  return `${base}/storectl/config.toml`;
}

/** The profile called `name`, or an error that lists the existing ones. */
export function requireProfile(doc: ConfigDocument, name: string): ProfileRecord {
  const record = doc.profiles?.[name];
  if (record) return record;
  const existing = Object.keys(doc.profiles ?? {});
  throw new StoreCtlError("config", `Profile '${name}' not found`, {
    tips: [existing.length ? `Existing profiles: ${existing.join(", ")}` : "No profiles exist yet"],
    reason: "profile_not_found",
    details: { name, existing },
  });
}

/**
 * Creates or updates a profile, keeping every key not named in `fields`, the other profiles and
 * every `${VAR}` reference as written. A new profile needs `deployment_type`.
 */
export function setProfile(doc: ConfigDocument, name: string, fields: ProfileRecord): ConfigDocument {
  const current = doc.profiles?.[name];
  if (!current && !fields.deployment_type) {
    throw new StoreCtlError("usage", `Profile '${name}' does not exist yet, so its deployment type is needed`, {
      reason: "deployment_required",
      details: { name },
    });
  }
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  return { ...doc, profiles: { ...doc.profiles, [name]: { ...current, ...defined } } };
}

/** Removes a profile, and the default that pointed at it. */
export function removeProfile(doc: ConfigDocument, name: string): ConfigDocument {
  requireProfile(doc, name);
  const { [name]: _removed, ...profiles } = doc.profiles!;
  const next: ConfigDocument = { ...doc, profiles };
  for (const key of ["default_cloud", "default_enterprise"] as const) if (next[key] === name) delete next[key];
  return next;
}

/** Makes `name` the default profile of its deployment type. */
export function setDefault(doc: ConfigDocument, name: string): ConfigDocument {
  const type = deploymentOf(requireProfile(doc, name), name);
  return { ...doc, [`default_${type}`]: name };
}

/** The profile's deployment type, or an error saying the profile lacks one. */
export function deploymentOf(record: ProfileRecord, name: string): Deployment {
  const type = record.deployment_type;
  if (type === "cloud" || type === "enterprise") return type;
  throw new StoreCtlError(
    "config",
    `Profile '${name}' has no valid deployment_type: it must be "cloud" or "enterprise", not ${JSON.stringify(type)}`,
    { reason: "deployment_invalid", details: { name } },
  );
}

/**
 * Checks what parsing cannot: that every profile is a table with a valid `deployment_type`.
 * Commands that use credentials call it when the config is read; repairs skip it.
 */
export function validateProfiles(doc: ConfigDocument, path: string): void {
  for (const [name, record] of Object.entries(doc.profiles ?? {})) {
    if (typeof record !== "object" || record === null || Array.isArray(record)) {
      throw new StoreCtlError("config", `${path}: profile '${name}' must be a [profiles.${name}] table`);
    }
    try {
      deploymentOf(record, name);
    } catch (error) {
      const e = error as StoreCtlError;
      throw new StoreCtlError("config", `${path}: ${e.message}`, { reason: e.reason, details: e.details });
    }
  }
}

/** One line of `ctl profile list`. */
export interface ProfileSummary {
  readonly name: string;
  readonly deployment_type: string;
  readonly default: boolean;
  readonly endpoint: string;
}

/** Every profile, with whether it is its type's default; no secrets. */
export function listProfiles(doc: ConfigDocument): ProfileSummary[] {
  return Object.entries(doc.profiles ?? {}).map(([name, p]) => ({
    name,
    deployment_type: String(p.deployment_type ?? ""),
    default: doc.default_cloud === name || doc.default_enterprise === name,
    endpoint: maskUrl(String(p.deployment_type === "cloud" ? p.api_url ?? "" : p.url ?? "")),
  }));
}

/**
 * A copy with secrets masked (passwords entirely); `${VAR}` and `keyring:` references are shown,
 * they are not secret.
 */
export function maskSecrets<T extends Record<string, unknown>>(record: T): T {
  const copy: Record<string, unknown> = { ...record };
  for (const key of SECRET_KEYS) {
    const value = copy[key];
    if (typeof value === "string" && !isReference(value)) copy[key] = key === "password" ? "****" : mask(value);
  }
  for (const key of ["url", "api_url"]) {
    if (typeof copy[key] === "string") copy[key] = maskUrl(copy[key] as string);
  }
  return copy as T;
}

/** Whether a value names where the secret lives rather than holding it. */
export function isReference(value: string): boolean {
  return value.startsWith("keyring:") || /^\$\{[^}]+\}$/.test(value);
}
