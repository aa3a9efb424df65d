import { assert, assertEquals, assertMatch, assertRejects } from "../../testing/assert.ts";
import type { StoreCtlError } from "../errors/mod.ts";
import {
  type ConfigDocument,
  configPath,
  expandVars,
  type Keyring,
  listProfiles,
  maskSecrets,
  maskUrl,
  parseConfig,
  removeProfile,
  requireProfile,
  resolveCredentials,
  serializeConfig,
  setDefault,
  setProfile,
  validateProfiles,
} from "./mod.ts";

const TEXT = `default_enterprise = "lab"
custom_top = 1

[profiles.prod]
deployment_type = "cloud"
api_key = "\${PROD_KEY}"
api_secret = "keyring:prod-secret"
api_url = "https://api.example.test/v1"
team = "ops"

[profiles.lab]
deployment_type = "enterprise"
url = "https://\${LAB_HOST:-localhost}:9443"
username = "admin@example.com"
password = "lab-password-123"
insecure = true
`;

const fakeKeyring = (entries: Record<string, string>): Keyring => ({
  get: (name) => Promise.resolve(entries[name]),
  set: () => Promise.resolve(),
  delete: () => Promise.resolve(),
});

Deno.test("configPath() prefers --config-file, then STORE_CONFIG_FILE, then XDG, then ~/.config", () => {
  assertEquals(configPath({ STORE_CONFIG_FILE: "/e.toml" }, "/home/u", "/flag.toml"), "/flag.toml");
  assertEquals(configPath({ STORE_CONFIG_FILE: "/e.toml", XDG_CONFIG_HOME: "/x" }, "/home/u"), "/e.toml");
  assertEquals(configPath({ XDG_CONFIG_HOME: "/x" }, "/home/u"), "/x/storectl/config.toml");
  assertEquals(configPath({}, "/home/u"), "/home/u/.config/storectl/config.toml");
});

Deno.test("parseConfig() reports the line and column of a syntax error", async () => {
  try {
    await parseConfig('[profiles.a]\nurl = "x"\npassword = \n', "/c.toml");
    throw new Error("expected a failure");
  } catch (error) {
    assertEquals((error as StoreCtlError).code, "config");
    assertMatch((error as Error).message, /^Cannot parse \/c\.toml at line 3, column \d+: /);
  }
});

Deno.test("setProfile() keeps other keys, other profiles and ${VAR} references", async () => {
  const doc = await parseConfig(TEXT, "c.toml");
  const next = setProfile(doc, "prod", { api_url: "https://other.test/v1" });
  const round = await parseConfig(await serializeConfig(next), "c.toml");
  assertEquals({ ...round.profiles!.prod }, { ...doc.profiles!.prod, api_url: "https://other.test/v1" });
  assertEquals(round.profiles!.prod.api_key, "${PROD_KEY}");
  assertEquals({ ...round.profiles!.lab }, { ...doc.profiles!.lab });
  assertEquals([round.default_enterprise, round.custom_top], ["lab", 1]);
});

Deno.test("setProfile() needs a deployment type for a new profile", () => {
  assertEquals(setProfile({}, "n", { deployment_type: "cloud" }).profiles!.n.deployment_type, "cloud");
  try {
    setProfile({}, "n", { api_key: "k" });
    throw new Error("expected a failure");
  } catch (error) {
    assertEquals([(error as StoreCtlError).reason, (error as StoreCtlError).details], ["deployment_required", {
      name: "n",
    }]);
  }
});

Deno.test("requireProfile() names the missing profile and lists the existing ones", async () => {
  try {
    requireProfile(await parseConfig(TEXT, "c.toml"), "staging");
    throw new Error("expected a failure");
  } catch (error) {
    assertEquals((error as Error).message, "Profile 'staging' not found");
    assertEquals((error as StoreCtlError).tips[0], "Existing profiles: prod, lab");
  }
});

Deno.test("setDefault() and removeProfile() manage the per-type defaults", async () => {
  let doc: ConfigDocument = await parseConfig(TEXT, "c.toml");
  doc = setDefault(doc, "prod");
  assertEquals(doc.default_cloud, "prod");
  assertEquals(listProfiles(doc).map((p) => [p.name, p.default]), [["prod", true], ["lab", true]]);
  doc = removeProfile(doc, "lab");
  assertEquals([doc.default_enterprise, Object.keys(doc.profiles!)], [undefined, ["prod"]]);
});

Deno.test("maskSecrets() masks secrets but shows references", async () => {
  const masked = maskSecrets((await parseConfig(TEXT, "c.toml")).profiles!.lab);
  assertEquals(masked.password, "****");
  const prod = maskSecrets((await parseConfig(TEXT, "c.toml")).profiles!.prod);
  assertEquals([prod.api_key, prod.api_secret], ["${PROD_KEY}", "keyring:prod-secret"]);
});

Deno.test("expandVars() expands ${VAR} and ${VAR:-default}, keeps bare $VAR, names unset ones", () => {
  assertEquals(expandVars("${A}-${B:-dflt}-$C", { A: "a" }, "x"), "a-dflt-$C");
  try {
    expandVars("${MISSING}", {}, "profile 'p' key 'url'");
    throw new Error("expected a failure");
  } catch (error) {
    assertEquals((error as Error).message, "Environment variable MISSING, used by profile 'p' key 'url', is not set");
  }
});

Deno.test("resolveCredentials() takes environment over profile over flags", async () => {
  const doc = await parseConfig(TEXT, "c.toml");
  const base = { deployment: "enterprise" as const, doc };
  const fromProfile = await resolveCredentials({ ...base, env: {} });
  assertEquals([fromProfile.profile, (fromProfile as { url: string }).url], ["lab", "https://localhost:9443"]);
  const fromEnv = await resolveCredentials({
    ...base,
    env: { STORE_ENTERPRISE_URL: "https://env:9443/v1/", LAB_HOST: "x" },
  });
  assertEquals(fromEnv.deployment === "enterprise" && [fromEnv.url, fromEnv.sources.url], [
    "https://env:9443",
    "STORE_ENTERPRISE_URL",
  ]);
  const noInsecure = setProfile(doc, "lab", { insecure: undefined });
  delete noInsecure.profiles!.lab.insecure;
  const flagged = await resolveCredentials({
    ...base,
    doc: noInsecure,
    env: {},
    flags: { insecure: true, caCert: "/ca.pem" },
  });
  assert(flagged.deployment === "enterprise" && flagged.insecure && flagged.caCert === "/ca.pem");
  assertEquals(flagged.deployment === "enterprise" && flagged.sources.insecure, "command line");
  const envWins = await resolveCredentials({
    ...base,
    env: { STORE_ENTERPRISE_INSECURE: "false" },
    flags: { insecure: true },
  });
  assertEquals(envWins.deployment === "enterprise" && envWins.insecure, false);
});

Deno.test("resolveCredentials() reads cloud secrets from env aliases, ${VAR} and the keyring", async () => {
  const doc = await parseConfig(TEXT, "c.toml");
  const creds = await resolveCredentials({
    deployment: "cloud",
    doc,
    env: { PROD_KEY: "key-from-var" },
    keyring: fakeKeyring({ "prod-secret": "secret-from-keyring" }),
  });
  assert(creds.deployment === "cloud");
  assertEquals([creds.apiKey, creds.apiSecret, creds.sources.apiSecret], [
    "key-from-var",
    "secret-from-keyring",
    "profile 'prod'",
  ]);
  const alias = await resolveCredentials({
    deployment: "cloud",
    doc: {},
    env: { STORE_CLOUD_API_KEY: "k", STORE_CLOUD_SECRET_KEY: "s", STORE_CLOUD_API_URL: "http://x/v1/" },
  });
  assert(alias.deployment === "cloud" && alias.apiSecret === "s" && alias.apiUrl === "http://x/v1");
});

Deno.test("resolveCredentials() explains what is missing", async () => {
  const error = await assertRejects(
    () =>
      resolveCredentials({
        deployment: "cloud",
        doc: {},
        env: { STORE_CLOUD_API_KEY: "k", STORE_CLOUD_API_SECRET: "s" },
      }),
    /No cloud API URL configured/,
  );
  assertEquals((error as StoreCtlError).reason, "credential_missing");
  assertEquals((error as StoreCtlError).details.envName, "STORE_CLOUD_API_URL");
  await assertRejects(
    async () =>
      resolveCredentials({
        deployment: "cloud",
        doc: await parseConfig(TEXT, "c.toml"),
        env: {},
        keyring: fakeKeyring({}),
      }),
    /Environment variable PROD_KEY, used by profile 'prod' key 'api_key'/,
  );
  await assertRejects(
    async () =>
      resolveCredentials({
        deployment: "cloud",
        doc: await parseConfig(TEXT, "c.toml"),
        env: { PROD_KEY: "k" },
        keyring: fakeKeyring({}),
      }),
    /profile 'prod' key 'api_secret' refers to keyring entry 'prod-secret', which does not exist/,
  );
  await assertRejects(
    async () =>
      resolveCredentials({ deployment: "cloud", doc: await parseConfig(TEXT, "c.toml"), env: {}, profile: "lab" }),
    /Profile 'lab' is an enterprise profile, not cloud/,
  );
});

Deno.test("resolveCredentials() with several profiles of a type and no default names them all", async () => {
  const doc = await parseConfig(
    `[profiles.a]\ndeployment_type = "enterprise"\n[profiles.b]\ndeployment_type = "enterprise"\n`,
    "c.toml",
  );
  const error = await assertRejects(
    () => resolveCredentials({ deployment: "enterprise", doc, env: {} }),
    /^No enterprise profile chosen: 2 exist \(a, b\) and none is the default$/,
  ) as StoreCtlError;
  assertEquals([error.code, error.reason, error.details.candidates], ["config", "profile_ambiguous", ["a", "b"]]);
  const fromEnv = await resolveCredentials({
    deployment: "enterprise",
    doc,
    env: { STORE_ENTERPRISE_URL: "https://h:9443", STORE_ENTERPRISE_USER: "u", STORE_ENTERPRISE_PASSWORD: "p" },
  });
  assertEquals(fromEnv.profile, undefined, "the environment alone still works");
});

Deno.test("resolveCredentials() checks URLs and takes user-info out of them", async () => {
  const env = { STORE_ENTERPRISE_URL: "https://admin%40example.com:s3cret@cluster:9443/v1/" };
  const creds = await resolveCredentials({ deployment: "enterprise", doc: {}, env });
  assert(creds.deployment === "enterprise");
  assertEquals([creds.url, creds.username, creds.password], ["https://cluster:9443", "admin@example.com", "s3cret"]);
  assertEquals(creds.sources.password, "STORE_ENTERPRISE_URL (URL)");
  const noScheme = await assertRejects(
    () => resolveCredentials({ deployment: "enterprise", doc: {}, env: { STORE_ENTERPRISE_URL: "cluster:9443" } }),
    /^Invalid enterprise URL 'cluster:9443' \(STORE_ENTERPRISE_URL\): it has no scheme$/,
  ) as StoreCtlError;
  assertEquals([noScheme.code, noScheme.tips[0]], [
    "config",
    "Write it with https:// in front, e.g. https://cluster:9443",
  ]);
  await assertRejects(
    () =>
      resolveCredentials({
        deployment: "cloud",
        doc: {},
        env: { STORE_CLOUD_API_KEY: "k", STORE_CLOUD_API_SECRET: "s", STORE_CLOUD_API_URL: "ftp://x/v1" },
      }),
    /scheme must be https or http, not ftp/,
  );
});

Deno.test("maskUrl() hides user-info in any URL of a text", () => {
  assertEquals(
    maskUrl("GET https://admin:pw@cluster:9443/v1 and http://u@h/x"),
    "GET https://***@cluster:9443/v1 and http://***@h/x",
  );
  assertEquals(maskUrl("https://cluster:9443/v1/bdbs?x=a@b"), "https://cluster:9443/v1/bdbs?x=a@b");
});

Deno.test("validateProfiles() names the file, the profile and the bad deployment_type", async () => {
  const doc = await parseConfig(`[profiles.x]\ndeployment_type = "clod"\n`, "/c.toml");
  try {
    validateProfiles(doc, "/c.toml");
    throw new Error("expected a failure");
  } catch (error) {
    assertMatch((error as Error).message, /^\/c\.toml: Profile 'x' has no valid deployment_type: .* not "clod"$/);
  }
});
