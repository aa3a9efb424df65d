import { cloudUrlWithVersion, type Credentials } from "../lib/config/mod.ts";
import type { StoreCtlError } from "../lib/errors/mod.ts";
import type { Factory } from "./factory.ts";

/** The flag of `ctl profile set` that stores each profile key. */
const SET_FLAGS: Readonly<Record<string, string>> = {
  api_key: "--api-key <key>",
  api_secret: "--api-secret <secret>",
  api_url: "--api-url <url>",
  url: "--url <https://host:9443>",
  username: "--username <user>",
  password: "--password <password>",
};

/** Where a value came from names an environment variable when it is one. */
const fromEnv = (source: string | undefined) => source !== undefined && /^STORE_/.test(source);

/**
 * Tips that name `ctl`'s flags and commands, for an error raised anywhere below the CLI. They
 * depend on where the credentials in use came from, so no tip suggests a flag that would lose
 * to the environment or the profile.
 */
export function hintsFor(error: StoreCtlError, factory?: Factory): string[] {
  const d = error.details;
  switch (error.reason) {
    case "profile_not_found":
      return [`Create it: ctl profile set ${d.name} --deployment cloud|enterprise …`];
    case "profile_ambiguous":
      return [
        `Choose one with -p <name> (or STORE_PROFILE=<name>): ${(d.candidates as string[]).join(", ")}`,
        "Or make one the default: ctl profile default <name>",
      ];
    case "profile_wrong_type": {
      const candidates = d.candidates as string[];
      return [`Choose a ${d.deployment} profile with -p${candidates.length ? `: ${candidates.join(", ")}` : ""}`];
    }
    case "credential_missing":
      return [
        `Set ${d.envName}, or run: ctl profile set ${d.profile ?? "<name>"} --deployment ${d.deployment} ${
          SET_FLAGS[d.key as string] ?? ""
        }`.trimEnd(),
      ];
    case "deployment_required":
      return [`Give --deployment cloud or --deployment enterprise: ctl profile set ${d.name} --deployment …`];
    case "deployment_invalid":
      return [`Fix it: ctl profile set ${d.name} --deployment cloud|enterprise`];
    case "missing_command":
      return [];
    case "task_timeout":
      return [`The task goes on; keep waiting with: ctl cloud task wait ${d.taskId}`];
    case "first_byte_timeout":
      return ["A cluster builds the package before it sends it: give it longer with --first-byte-timeout <seconds>"];
    case "task_not_found":
      return d.accepted ? [] : ["Check the id: ctl cloud task list shows the account's tasks"];
  }
  switch (error.code) {
    case "tls":
      return tlsHints(factory?.used.enterprise);
    case "auth":
      return authHints(factory?.used.enterprise ?? factory?.used.cloud);
    case "not_found":
      return cloudBaseHints(factory?.used.cloud);
    case "timeout":
      return ["Raise the limit with --timeout <seconds> (up to 86400), or check that the server is reachable"];
    case "usage":
      if (error.reason === "unknown_command") return ["Run ctl --help to see the commands"];
      return error.reason === "bad_arguments" ? ["Run with --help to see the usage"] : [];

    default:
      return [];
  }
}

/** A 404 from a cloud base URL without the API's `/v1` says where to add it. */
function cloudBaseHints(creds: Credentials | undefined): string[] {
  const fixed = creds?.deployment === "cloud" ? cloudUrlWithVersion(creds.apiUrl) : undefined;
  if (creds?.deployment !== "cloud" || !fixed) return [];
  const source = creds.sources.apiUrl;
  return [
    fromEnv(source)
      ? `The cloud API's base URL ends in /v1: set ${source} to ${fixed}`
      : `The cloud API's base URL ends in /v1: ctl profile set ${creds.profile ?? "<name>"} --api-url ${fixed}`,
  ];
}

function tlsHints(creds: Credentials | undefined): string[] {
  if (creds?.deployment !== "enterprise") return [];
  const { caCert, insecure } = creds.sources;
  const tips = [];
  if (creds.caCert !== undefined && caCert !== "command line") {
    tips.push(`The certificate ${creds.caCert} (ca_cert from ${caCert}) does not verify this server: change it there`);
  } else {
    tips.push(
      "Trust the cluster's certificate: --ca-cert <file> (or ca_cert in the profile, or STORE_ENTERPRISE_CA_CERT)",
    );
  }
  if (fromEnv(insecure)) tips.push(`Or accept any certificate: ${insecure}=true`);
  else if (insecure.startsWith("profile")) {
    tips.push(`Or accept any certificate: ctl profile set ${creds.profile} --insecure`);
  } else {
    tips.push(
      "Or accept any certificate: --insecure (or insecure = true in the profile, or STORE_ENTERPRISE_INSECURE=true)",
    );
  }
  return tips;
}

function authHints(creds: Credentials | undefined): string[] {
  if (!creds) return [];
  const secrets = creds.deployment === "cloud"
    ? [creds.sources.apiKey, creds.sources.apiSecret]
    : [creds.sources.username, creds.sources.password];
  const variables = secrets.filter(fromEnv);
  if (variables.length > 0) {
    return [
      `${variables.join(" and ")} ${variables.length > 1 ? "are" : "is"} set and take${
        variables.length > 1 ? "" : "s"
      } priority over the profile: check or unset ${variables.length > 1 ? "them" : "it"}`,
    ];
  }
  return [`Check the credentials: ctl profile show ${creds.profile ?? "<name>"}, or the STORE_* environment variables`];
}
