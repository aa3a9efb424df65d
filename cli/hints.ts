import type { ErrorCode } from "../lib/errors/mod.ts";

/**
 * Tips that name `ctl` flags and commands, keyed by error code. They live here, not in `lib/`,
 * because only the CLI knows its flags.
 */
export const HINTS: Partial<Readonly<Record<ErrorCode, readonly string[]>>> = {
  tls: [
    "Trust the cluster's certificate: --ca-cert <file> (or ca_cert in the profile, or STORE_ENTERPRISE_CA_CERT)",
    "Or accept any certificate: --insecure (or insecure = true in the profile, or STORE_ENTERPRISE_INSECURE=true)",
  ],
  timeout: ["Raise the limit with --timeout <seconds>, or check that the server is reachable"],
  auth: ["Check the credentials: ctl profile show <name>, or the STORE_* environment variables"],
};
