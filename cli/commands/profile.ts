import {
  cloudUrlWithVersion,
  type ConfigDocument,
  type Deployment,
  listProfiles,
  maskSecrets,
  parseBaseUrl,
  type ProfileRecord,
  removeProfile,
  requireProfile,
  selectProfile,
  setDefault,
  setProfile,
} from "../../lib/config/mod.ts";
import { StoreCtlError } from "../../lib/errors/mod.ts";
import type { Factory } from "../factory.ts";
import { arg, flag } from "../framework/params.ts";
import { command, group } from "../framework/spec.ts";

const CLOUD_KEYS = ["api_key", "api_secret", "api_url"];
const ENTERPRISE_KEYS = ["url", "username", "password", "insecure", "ca_cert"];
const NAME = arg.string("name", "profile name");

const set = command({
  summary: "create or update a profile",
  description: `Create or update a profile. Updating keeps the profile's other keys.

The global --insecure and --ca-cert <file> are stored too (enterprise); the certificate is checked
and stored with its absolute path. A user name and password written into --url move into
username and password. Values may be \${VAR} or \${VAR:-default} (expanded when read) or
keyring:<name>. Comments in the file are not kept.`,
  args: [NAME],
  flags: {
    deployment: flag.choice("cloud or enterprise (needed for a new profile)", ["cloud", "enterprise"]),
    apiKey: flag.string("cloud API key", { placeholder: "key" }),
    apiSecret: flag.string("cloud API secret", { placeholder: "secret" }),
    apiUrl: flag.string("cloud API base URL, ending in /v1", { placeholder: "url" }),
    url: flag.string("enterprise cluster URL, e.g. https://cluster:9443", { placeholder: "url" }),
    username: flag.string("enterprise user name", { placeholder: "user" }),
    password: flag.string("enterprise password", { placeholder: "password" }),
    filesApiKey: flag.string("upload key for support packages", { placeholder: "key" }),
    useKeyring: flag.boolean("keep the secrets given here in the system keyring; the file gets keyring:<entry>"),
  },
  examples: [
    `ctl profile set prod --deployment cloud --api-key "$KEY" --api-secret '\${PROD_SECRET}' --api-url https://api.example.com/v1`,
    "ctl profile set lab --deployment enterprise --url https://lab:9443 --username admin@example.com --password 'p@ss' --insecure",
  ],
  async run({ args: [name], flags }, f) {
    const fields: ProfileRecord = {
      deployment_type: flags.deployment,
      api_key: flags.apiKey,
      api_secret: flags.apiSecret,
      api_url: flags.apiUrl,
      url: flags.url,
      username: flags.username,
      password: flags.password,
      ...(f.globals.insecure && { insecure: true }),
      ca_cert: f.globals.caCert === undefined ? undefined : await checkedCaCert(f, f.globals.caCert),
      files_api_key: flags.filesApiKey,
    };
    if (fields.api_url !== undefined && !resolvedWhenRead(fields.api_url)) {
      const base = parseBaseUrl(fields.api_url, "cloud", "--api-url");
      if (base.username !== undefined) {
        throw new StoreCtlError("usage", "--api-url must not carry a user name or password", {
          tips: ["Cloud requests authenticate with --api-key and --api-secret"],
        });
      }
      const fixed = cloudUrlWithVersion(base.url);
      if (fixed) {
        f.warn(
          `--api-url '${base.url}' does not end in /v1, where the cloud API's paths start: requests will likely answer 404 (write it like ${fixed})`,
        );
      }
    }
    if (fields.url !== undefined && !resolvedWhenRead(fields.url)) {
      const base = parseBaseUrl(fields.url, "enterprise", "--url");
      // Credentials written into the URL are stored where they are masked, not in the URL.
      if (base.username !== undefined) {
        fields.url = base.url;
        fields.username ??= base.username;
        fields.password ??= base.password;
      }
    }
    const stored = flags.useKeyring ? await intoKeyring(f, name, fields) : [];
    const path = await f.updateConfig((doc) => {
      const type = flags.deployment ?? doc.profiles?.[name]?.deployment_type;
      const wrong = type === "cloud" ? ENTERPRISE_KEYS : type === "enterprise" ? CLOUD_KEYS : [];
      const misplaced = wrong.find((key) => fields[key] !== undefined);
      if (misplaced) {
        throw new StoreCtlError("usage", `--${misplaced.replace("_", "-")} does not apply to a ${type} profile`);
      }
      return setProfile(doc, name, fields);
    });
    f.ctx.stderr.write(`Saved profile '${name}' in ${path}\n`);
    if (stored.length > 0) {
      f.ctx.stderr.write(`Stored ${stored.join(", ")} in the system keyring (entries '${name}:<key>')\n`);
    }
  },
});

/** Secrets `--use-keyring` moves into the keyring. */
const KEYRING_KEYS = ["api_secret", "password", "files_api_key"] as const;

/**
 * Moves the secrets given on the command line into the keyring as `<profile>:<key>` and puts
 * `keyring:<profile>:<key>` in their place; `${VAR}` and `keyring:` values stay as written.
 */
async function intoKeyring(f: Factory, profile: string, fields: ProfileRecord): Promise<string[]> {
  const moved: string[] = [];
  for (const key of KEYRING_KEYS) {
    const value = fields[key];
    if (typeof value !== "string" || resolvedWhenRead(value)) continue;
    const entry = `${profile}:${key}`;
    await f.ctx.keyring.set(entry, value);
    fields[key] = `keyring:${entry}`;
    moved.push(key);
  }
  if (moved.length === 0) {
    throw new StoreCtlError(
      "usage",
      "--use-keyring needs a secret to store: --api-secret, --password or --files-api-key",
    );
  }
  return moved;
}

/** `${VAR}` and `keyring:` values are checked when they are read, not when stored. */
function resolvedWhenRead(value: string): boolean {
  return value.includes("${") || value.startsWith("keyring:");
}

/** The certificate file, absolute, once it is known to exist and hold a PEM certificate. */
async function checkedCaCert(f: Factory, file: string): Promise<string> {
  const path = f.resolvePath(file);
  const text = await f.ctx.fs.readTextFile(path);
  if (!/-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----/.test(text)) {
    throw new StoreCtlError("usage", `--ca-cert ${file} is not a PEM certificate (no BEGIN CERTIFICATE block)`, {
      tips: ["Give the cluster's CA certificate in PEM form, e.g. exported with openssl x509 -outform PEM"],
    });
  }
  return path;
}

const list = command({
  summary: "list profiles (no secrets)",
  output: {
    columns: [
      { header: "NAME", value: "name" },
      { header: "TYPE", value: "deployment_type" },
      // The profile a command of its type would use now (-p, STORE_PROFILE, the default, the only one).
      { header: "DEFAULT", value: (row) => (row.in_use ? "yes" : "") },
      { header: "ENDPOINT", value: "endpoint" },
    ],
    empty: "No profiles yet: create one with ctl profile set <name> --deployment cloud|enterprise",
  },
  async run(_input, f) {
    const { doc } = await f.config({ repair: true });
    const inUse = profilesInUse(f, doc);
    return listProfiles(doc).map((profile) => ({ ...profile, in_use: inUse.has(profile.name) }));
  },
});

/** The names of the profiles that commands of each deployment type would use now. */
function profilesInUse(f: Factory, doc: ConfigDocument): Set<string> {
  const names = new Set<string>();
  for (const deployment of ["cloud", "enterprise"] as const) {
    try {
      const selected = selectProfile({ deployment, doc, env: f.ctx.env, profile: f.globals.profile });
      if (selected) names.add(selected.name);
    } catch {
      // -p or STORE_PROFILE names a profile of the other type, or none: nothing of this type is in use.
    }
  }
  return names;
}

const show = command({
  summary: "show one profile, secrets masked",
  args: [NAME],
  async run({ args: [name] }, f) {
    return { name, ...maskSecrets({ ...requireProfile((await f.config({ repair: true })).doc, name) }) };
  },
});

const path = command({
  summary: "print the config file's location",
  async run(_input, f) {
    f.ctx.stdout.write(`${(await f.config({ repair: true })).path}\n`);
  },
});

const makeDefault = command({
  summary: "make a profile the default for its deployment type",
  args: [NAME],
  async run({ args: [name] }, f) {
    await f.updateConfig((doc) => setDefault(doc, name));
    f.ctx.stderr.write(`'${name}' is now the default profile of its deployment type\n`);
  },
});

const remove = command({
  summary: "delete a profile",
  args: [NAME],
  confirm: ({ args: [name] }) => `Delete profile '${name}'?`,
  async run({ args: [name] }, f) {
    await f.updateConfig((doc) => removeProfile(doc, name));
    f.ctx.stderr.write(`Removed profile '${name}'\n`);
  },
});

const current = command({
  summary: "show which profile each deployment type would use, and why",
  args: [arg.optionalChoice("deployment", "only this deployment type", ["cloud", "enterprise"])],
  output: {
    columns: [
      { header: "DEPLOYMENT", value: "deployment" },
      { header: "PROFILE", value: "profile" },
      { header: "REASON", value: "reason" },
    ],
  },
  async run({ args: [deployment] }, f) {
    const { doc } = await f.config();
    const types: Deployment[] = deployment ? [deployment] : ["cloud", "enterprise"];
    return types.map((type) => {
      const selected = selectProfile({ deployment: type, doc, env: f.ctx.env, profile: f.globals.profile });
      return { deployment: type, profile: selected?.name ?? null, reason: selected?.how ?? "environment only" };
    });
  },
});

/** `ctl profile …`: stored credentials in the config file. */
export default group("manage stored profiles (credentials and endpoints)", {
  set,
  list,
  show,
  path,
  default: makeDefault,
  remove,
  current,
});
