import { mask, StoreCtlError } from "../errors/mod.ts";
import { type ConfigDocument, type Deployment, type ProfileRecord, SECRET_KEYS } from "./document.ts";

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
    tips: [
      existing.length ? `Existing profiles: ${existing.join(", ")}` : "No profiles exist yet",
      `Create it: ctl profile set ${name} --deployment cloud|enterprise …`,
    ],
  });
}

/**
 * Creates or updates a profile, keeping every key not named in `fields`, the other profiles and
 * every `${VAR}` reference as written. A new profile needs `deployment_type`.
 */
export function setProfile(doc: ConfigDocument, name: string, fields: ProfileRecord): ConfigDocument {
  const current = doc.profiles?.[name];
  if (!current && !fields.deployment_type) {
    throw new StoreCtlError("usage", `Profile '${name}' does not exist yet; give --deployment cloud or enterprise`);
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
  throw new StoreCtlError("config", `Profile '${name}' has no valid deployment_type (got ${JSON.stringify(type)})`, {
    tips: [`ctl profile set ${name} --deployment cloud|enterprise`],
  });
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
    endpoint: String(p.deployment_type === "cloud" ? p.api_url ?? "" : p.url ?? ""),
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
  return copy as T;
}

/** Whether a value names where the secret lives rather than holding it. */
export function isReference(value: string): boolean {
  return value.startsWith("keyring:") || /^\$\{[^}]+\}$/.test(value);
}
