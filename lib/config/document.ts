import { StoreCtlError } from "../errors/mod.ts";

/** The deployment a profile talks to. */
export type Deployment = "cloud" | "enterprise";

/** A stored profile, as written in the file (values unexpanded). Unknown keys are kept. */
export interface ProfileRecord {
  deployment_type?: Deployment;
  api_key?: string;
  api_secret?: string;
  api_url?: string;
  url?: string;
  username?: string;
  password?: string;
  insecure?: boolean | string;
  ca_cert?: string;
  files_api_key?: string;
  [key: string]: unknown;
}

/** The whole config file. Unknown keys are kept. */
export interface ConfigDocument {
  /** The format's version (`lib/config/version.ts`); none: version 0. */
  version?: number | bigint;
  default_cloud?: string;
  default_enterprise?: string;
  files_api_key?: string;
  profiles?: Record<string, ProfileRecord>;
  [key: string]: unknown;
}

/** Keys whose values are secrets: masked in every listing. */
export const SECRET_KEYS = ["api_key", "api_secret", "password", "files_api_key"] as const;

/**
 * Parses the config TOML. A syntax error names the file, line and column; the caller must
 * then leave the file untouched.
 */
export async function parseConfig(text: string, path: string): Promise<ConfigDocument> {
  const { parse, TomlError } = await import("smol-toml");
  try {
    const doc = parse(text, { integersAsBigInt: "asNeeded" }) as ConfigDocument;
    if (doc.profiles !== undefined && (typeof doc.profiles !== "object" || Array.isArray(doc.profiles))) {
      throw new StoreCtlError("config", `${path}: 'profiles' must be a table of [profiles.<name>] sections`);
    }
    return doc;
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = error.message.split("\n")[0].replace(/^Invalid TOML document: /, "");
    throw new StoreCtlError(
      "config",
      `Cannot parse ${path} at line ${error.line}, column ${error.column}: ${reason}`,
      { tips: ["Fix the file by hand; storectl does not rewrite a file it cannot read"], cause: error },
    );
  }
}

/** Serialises the config. TOML comments are not kept: smol-toml cannot round-trip them. */
export async function serializeConfig(doc: ConfigDocument): Promise<string> {
  return (await import("smol-toml")).stringify(doc) + "\n";
}
