import { StoreCtlError } from "../errors/mod.ts";
import type { ConfigDocument, Deployment, ProfileRecord } from "./document.ts";
import { expandVars } from "./expand.ts";
import type { Keyring } from "./keyring.ts";
import { deploymentOf, requireProfile } from "./profiles.ts";
import { parseBaseUrl } from "./url.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** Where a value came from, for `-vv`: an environment variable, `profile 'x'`, or a flag. */
export type Source = string;

/** Cloud access: key + secret headers against a base URL ending in `/v1`. */
export interface CloudCredentials {
  readonly deployment: "cloud";
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly apiUrl: string;
  readonly profile?: string;
  readonly sources: Readonly<Record<"apiKey" | "apiSecret" | "apiUrl", Source>>;
}

/** Enterprise access: HTTP Basic against the cluster origin (paths carry `/v1`). */
export interface EnterpriseCredentials {
  readonly deployment: "enterprise";
  readonly url: string;
  readonly username: string;
  readonly password: string;
  readonly insecure: boolean;
  readonly caCert?: string;
  readonly profile?: string;
  readonly sources: Readonly<Record<"url" | "username" | "password" | "insecure" | "caCert", Source>>;
}

export type Credentials = CloudCredentials | EnterpriseCredentials;

/** Everything credentials are resolved from. */
export interface ResolveInput {
  readonly deployment: Deployment;
  readonly doc: ConfigDocument;
  readonly env: Env;
  /** `-p/--profile`. */
  readonly profile?: string;
  /** Command-line flags: the lowest priority, per the specification. */
  readonly flags?: { readonly insecure?: boolean; readonly caCert?: string };
  readonly keyring?: Keyring;
}

/**
 * Picks the profile: `-p`, then `STORE_PROFILE`, then the deployment type's default, then the
 * only profile of that type. Returns undefined when none applies (environment only).
 */
export function selectProfile(
  input: Pick<ResolveInput, "deployment" | "doc" | "env" | "profile">,
): { name: string; record: ProfileRecord; how: string } | undefined {
  const { doc, env, deployment } = input;
  const chosen = input.profile
    ? { name: input.profile, how: "--profile" }
    : env.STORE_PROFILE
    ? { name: env.STORE_PROFILE, how: "STORE_PROFILE" }
    : doc[`default_${deployment}`]
    ? { name: String(doc[`default_${deployment}`]), how: `default_${deployment}` }
    : undefined;
  if (chosen) {
    const record = requireProfile(doc, chosen.name);
    const type = deploymentOf(record, chosen.name);
    if (type !== deployment) {
      throw new StoreCtlError(
        "config",
        `Profile '${chosen.name}' is ${type === "enterprise" ? "an" : "a"} ${type} profile, not ${deployment}`,
        {
          reason: "profile_wrong_type",
          details: { name: chosen.name, deployment, candidates: profilesOfType(doc, deployment) },
        },
      );
    }
    return { ...chosen, record };
  }
  const ofType = profilesOfType(doc, deployment);
  return ofType.length === 1 ? { name: ofType[0], record: doc.profiles![ofType[0]], how: "only profile" } : undefined;
}

/** The names of the profiles of one deployment type. */
export function profilesOfType(doc: ConfigDocument, deployment: Deployment): string[] {
  return Object.entries(doc.profiles ?? {}).filter(([, p]) => p.deployment_type === deployment).map(([name]) => name);
}

/**
 * Resolves credentials with the specification's priority: environment variables, then the profile, then
 * command-line flags. Profile values get `${VAR}` expansion and `keyring:` lookup.
 */
export async function resolveCredentials(input: ResolveInput): Promise<Credentials> {
  const selected = selectProfile(input);
  const profileSource = selected && `profile '${selected.name}'`;
  const read = async (key: keyof ProfileRecord): Promise<string | undefined> => {
    const raw = selected?.record[key];
    if (raw === undefined || raw === null) return undefined;
    const where = `profile '${selected!.name}' key '${key}'`;
    const value = expandVars(String(raw), input.env, where);
    if (!value.startsWith("keyring:")) return value;
    if (!input.keyring) throw new StoreCtlError("config", `${where} uses the keyring, which is not enabled here`);
    const name = value.slice("keyring:".length);
    const secret = await input.keyring.get(name).catch((error: StoreCtlError) => {
      throw new StoreCtlError("config", `${where} refers to keyring entry '${name}': ${error.message}`, {
        tips: error.tips as string[],
      });
    });
    if (secret === undefined) {
      throw new StoreCtlError("config", `${where} refers to keyring entry '${name}', which does not exist`, {
        tips: [`Store it again, or set ${key} directly`],
      });
    }
    return secret;
  };
  /** The first defined value of env variables, profile key and flag, with its source. */
  const pick = async (envNames: string[], key: keyof ProfileRecord, flag?: string) => {
    for (const name of envNames) {
      if (input.env[name]) return { value: input.env[name]!, source: name };
    }
    const fromProfile = await read(key);
    if (fromProfile !== undefined) return { value: fromProfile, source: profileSource! };
    return flag !== undefined ? { value: flag, source: "command line" } : undefined;
  };
  const missing = (what: string, envName: string, key: string, note?: string): never => {
    const candidates = profilesOfType(input.doc, input.deployment);
    if (!selected && candidates.length > 1) {
      throw new StoreCtlError(
        "config",
        `No ${input.deployment} profile chosen: ${candidates.length} exist (${
          candidates.join(", ")
        }) and none is the default`,
        { reason: "profile_ambiguous", details: { deployment: input.deployment, candidates } },
      );
    }
    throw new StoreCtlError("config", `No ${what} configured${selected ? ` (profile '${selected.name}')` : ""}`, {
      tips: note ? [note] : [],
      reason: "credential_missing",
      details: { deployment: input.deployment, envName, key, profile: selected?.name },
    });
  };

  if (input.deployment === "cloud") {
    const apiKey = await pick(["STORE_CLOUD_API_KEY"], "api_key") ??
      missing("cloud API key", "STORE_CLOUD_API_KEY", "api_key");
    const apiSecret = await pick(["STORE_CLOUD_API_SECRET", "STORE_CLOUD_SECRET_KEY"], "api_secret") ??
      missing("cloud API secret", "STORE_CLOUD_API_SECRET", "api_secret");
    const apiUrl = await pick(["STORE_CLOUD_API_URL"], "api_url") ??
      missing("cloud API URL", "STORE_CLOUD_API_URL", "api_url", "No vendor URL is built in; the base URL ends in /v1");
    const base = parseBaseUrl(apiUrl.value, "cloud", apiUrl.source);
    if (base.username !== undefined) {
      throw new StoreCtlError("config", `The cloud URL from ${apiUrl.source} carries a user name or password`, {
        tips: ["Cloud requests authenticate with the API key and secret; remove the user-info from the URL"],
      });
    }
    return {
      deployment: "cloud",
      apiKey: apiKey.value,
      apiSecret: apiSecret.value,
      apiUrl: base.url,
      profile: selected?.name,
      sources: { apiKey: apiKey.source, apiSecret: apiSecret.source, apiUrl: apiUrl.source },
    };
  }

  const url = await pick(["STORE_ENTERPRISE_URL"], "url") ??
    missing("enterprise URL", "STORE_ENTERPRISE_URL", "url");
  const base = parseBaseUrl(url.value, "enterprise", url.source);
  const fromUrl = (value: string | undefined) =>
    value === undefined ? undefined : { value, source: `${url.source} (URL)` };
  const username = await pick(["STORE_ENTERPRISE_USER"], "username") ?? fromUrl(base.username) ??
    missing("enterprise username", "STORE_ENTERPRISE_USER", "username");
  const password = await pick(["STORE_ENTERPRISE_PASSWORD"], "password") ?? fromUrl(base.password) ??
    missing("enterprise password", "STORE_ENTERPRISE_PASSWORD", "password");
  const insecure = await pick(["STORE_ENTERPRISE_INSECURE"], "insecure", input.flags?.insecure ? "true" : undefined);
  const caCert = await pick(["STORE_ENTERPRISE_CA_CERT"], "ca_cert", input.flags?.caCert);
  return {
    deployment: "enterprise",
    url: base.url.replace(/\/v1$/, ""),
    username: username.value,
    password: password.value,
    insecure: ["true", "1", "yes"].includes((insecure?.value ?? "").toLowerCase()),
    caCert: caCert?.value,
    profile: selected?.name,
    sources: {
      url: url.source,
      username: username.source,
      password: password.source,
      insecure: insecure?.source ?? "default",
      caCert: caCert?.source ?? "none",
    },
  };
}
