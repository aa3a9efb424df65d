import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { CLOUD_URL, ENTERPRISE_URL, inProcessCtl } from "../../testing/ctl_in_process.ts";
import { tableRows } from "../../testing/table_text.ts";

const enterprise = ["--deployment", "enterprise", "--url", ENTERPRISE_URL, "--username", "admin@example.com"];

Deno.test("profiles: two of one type and no default name both and how to choose, exit 3", async () => {
  await using ctl = await inProcessCtl();
  for (const name of ["a", "b"]) {
    assertEquals((await ctl(["profile", "set", name, ...enterprise, "--password", "demo-password"])).code, 0);
  }
  const r = await ctl(["api", "enterprise", "get", "/v1/cluster"]);
  assertEquals(r.code, 3);
  assertEquals(
    r.stderr,
    "Error: No enterprise profile chosen: 2 exist (a, b) and none is the default\n" +
      "  tip: Choose one with -p <name> (or STORE_PROFILE=<name>): a, b\n" +
      "  tip: Or make one the default: ctl profile default <name>\n",
  );
  assertEquals((await ctl(["profile", "default", "b"])).code, 0);
  // A real cluster object has no `state`; its name shows profile b reached the cluster.
  assertEquals(
    (await ctl(["api", "enterprise", "get", "/v1/cluster", "-q", "name", "--raw"])).stdout,
    "cluster.example.local\n",
  );
});

Deno.test("profiles: a flag that loses to the profile or the environment is named on stderr, and tips follow the winner", async () => {
  await using ctl = await inProcessCtl();
  await Deno.writeTextFile(`${ctl.dir}/ca.pem`, "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n");
  await ctl(["profile", "set", "e", ...enterprise, "--password", "demo-password", "--ca-cert", "ca.pem"]);
  const env = { STORE_ENTERPRISE_INSECURE: "false" };
  const r = await ctl(["api", "enterprise", "get", "/v1/cluster", "--insecure", "--ca-cert", "/other.pem"], { env });
  assertMatch(r.stderr, /Warning: --insecure is ignored: STORE_ENTERPRISE_INSECURE sets insecure to false/);
  assertMatch(r.stderr, new RegExp(`Warning: --ca-cert is ignored: profile 'e' sets ca_cert to ${ctl.dir}/ca\\.pem`));
  assertEquals(r.transports.at(-1)?.insecure, false);
  // A TLS failure then points at what is in force, never at the losing flags.
  const { hintsFor } = await import("../hints.ts");
  const { StoreCtlError } = await import("../../lib/errors/mod.ts");
  const tips = hintsFor(new StoreCtlError("tls", "x"), {
    used: {
      enterprise: {
        deployment: "enterprise",
        url: ENTERPRISE_URL,
        username: "u",
        password: "p",
        insecure: false,
        caCert: `${ctl.dir}/ca.pem`,
        profile: "e",
        sources: { url: "", username: "", password: "", insecure: "STORE_ENTERPRISE_INSECURE", caCert: "profile 'e'" },
      },
    },
  } as never);
  assertEquals(tips, [
    `The certificate ${ctl.dir}/ca.pem (ca_cert from profile 'e') does not verify this server: change it there`,
    "Or accept any certificate: STORE_ENTERPRISE_INSECURE=true",
  ]);
});

Deno.test("profile set: --ca-cert is stored absolute, and must exist and be a PEM certificate", async () => {
  await using ctl = await inProcessCtl();
  await Deno.writeTextFile(`${ctl.dir}/ca.pem`, "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n");
  await Deno.writeTextFile(`${ctl.dir}/key.pem`, "-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----\n");
  assertEquals((await ctl(["profile", "set", "e", ...enterprise, "--ca-cert", "ca.pem"])).code, 0);
  assertMatch(await Deno.readTextFile(`${ctl.dir}/config.toml`), new RegExp(`ca_cert = "${ctl.dir}/ca\\.pem"`));
  const missing = await ctl(["profile", "set", "e", "--ca-cert", "nope.pem"]);
  assertEquals(missing.code, 13);
  assertMatch(missing.stderr, /Cannot read .*nope\.pem: no such file or directory/);
  const key = await ctl(["profile", "set", "e", "--ca-cert", "key.pem"]);
  assertEquals(key.code, 2);
  assertMatch(key.stderr, /--ca-cert key\.pem is not a PEM certificate/);
});

Deno.test("profile set: URL mistakes are config errors; user-info moves into username and password", async () => {
  await using ctl = await inProcessCtl();
  const noScheme = await ctl(["profile", "set", "e", "--deployment", "enterprise", "--url", "cluster:9443"]);
  assertEquals(noScheme.code, 3);
  assertMatch(
    noScheme.stderr,
    /Invalid enterprise URL 'cluster:9443' \(--url\): it has no scheme\n {2}tip: Write it with https:\/\/ in front/,
  );
  const withUser = await ctl([
    "profile",
    "set",
    "e",
    "--deployment",
    "enterprise",
    "--url",
    "https://admin%40example.com:s3cret@cluster.test:9443",
  ]);
  assertEquals(withUser.code, 0, withUser.stderr);
  const text = await Deno.readTextFile(`${ctl.dir}/config.toml`);
  assertMatch(text, /url = "https:\/\/cluster\.test:9443"/);
  assertMatch(text, /username = "admin@example\.com"/);
  assertMatch(text, /password = "s3cret"/);
  const cloud = await ctl(["profile", "set", "c", "--deployment", "cloud", "--api-url", "https://k:s@api.test/v1"]);
  assertEquals(cloud.code, 2);
  assert(!cloud.stderr.includes("k:s@"), cloud.stderr);
  const badType = await ctl(["profile", "set", "c", "--deployment", "cloud", "--api-url", CLOUD_URL]);
  assertEquals(badType.code, 0);
  assertEquals(badType.stderr.includes("Warning"), false, badType.stderr);
  const noVersion = await ctl(["profile", "set", "c", "--api-url", "https://api.test"]);
  assertEquals(noVersion.code, 0, "stored all the same: a proxy may serve the API elsewhere");
  assertMatch(
    noVersion.stderr,
    /^Warning: --api-url 'https:\/\/api\.test' does not end in \/v1, where the cloud API's paths start: requests will likely answer 404 \(write it like https:\/\/api\.test\/v1\)\n/,
  );
  await Deno.writeTextFile(
    `${ctl.dir}/config.toml`,
    `${await Deno.readTextFile(`${ctl.dir}/config.toml`)}\n[profiles.x]\ndeployment_type = "clod"\n`,
  );
  const invalid = await ctl(["api", "cloud", "get", "/regions"]);
  assertEquals(invalid.code, 3);
  assertMatch(
    invalid.stderr,
    /config\.toml: Profile 'x' has no valid deployment_type: .*not "clod"\n {2}tip: Fix it: ctl profile set x --deployment cloud\|enterprise/,
  );
  assertEquals(
    (await ctl(["profile", "set", "x", "--deployment", "cloud"])).code,
    0,
    "the broken profile can be repaired",
  );
});

Deno.test("credentials inside a URL never reach -vv, errors, --curl, profile show or list", async () => {
  await using ctl = await inProcessCtl({ password: "Sup3rSecret" });

  const secretUrl = "https://admin%40example.com:Sup3rSecret@cluster.test:9443";
  await Deno.writeTextFile(
    `${ctl.dir}/config.toml`,
    `[profiles.e]\ndeployment_type = "enterprise"\nurl = "${secretUrl}"\n`,
  );
  const runs = [
    await ctl(["api", "enterprise", "get", "/v1/cluster", "-vv"]),
    await ctl(["api", "enterprise", "get", "/v1/nope"]),
    await ctl(["api", "enterprise", "get", "/v1/nope", "-o", "json"]),
    await ctl(["api", "enterprise", "get", "/v1/cluster", "--curl"]),
    await ctl(["profile", "show", "e"]),
    await ctl(["profile", "list"]),
    await ctl(["api", "enterprise", "get", "/v1/cluster"], { env: { STORE_ENTERPRISE_URL: "cluster:1@x" } }),
  ];
  assertEquals(runs[0].code, 0, runs[0].stderr);
  assertMatch(runs[0].stderr, /password \*\*\*\* from profile 'e' \(URL\)/);
  for (const r of runs) assert(!`${r.stdout}${r.stderr}`.includes("Sup3rSecret"), `${r.stdout}${r.stderr}`);
  assertMatch(runs[4].stdout, /"url": "https:\/\/\*\*\*@cluster\.test:9443"/);
});

Deno.test("profile list: DEFAULT marks the profile each deployment type would use now, however it is chosen", async () => {
  await using ctl = await inProcessCtl();
  const cloud = ["--deployment", "cloud", "--api-url", CLOUD_URL, "--api-key", "k", "--api-secret", "s"];
  for (const name of ["c1", "c2"]) assertEquals((await ctl(["profile", "set", name, ...cloud])).code, 0);
  assertEquals((await ctl(["profile", "set", "e", ...enterprise, "--password", "p"])).code, 0);
  const marked = async (argv: string[] = [], env: Record<string, string> = {}) => {
    const r = await ctl([...argv, "profile", "list"], { env, tty: { stdout: true }, columns: 120 });
    assertEquals(r.code, 0, r.stderr);
    return tableRows(r.stdout).filter((row) => row.DEFAULT === "yes").map((row) => row.NAME);
  };
  // The only enterprise profile is used; of two cloud profiles without a default, none.
  assertEquals(await marked(), ["e"]);
  assertEquals((await ctl(["profile", "default", "c2"])).code, 0);
  assertEquals(await marked(), ["c2", "e"]);
  // -p and STORE_PROFILE choose for every command: an enterprise command would refuse the cloud c1.
  assertEquals(await marked([], { STORE_PROFILE: "c1" }), ["c1"]);
  assertEquals(await marked(["-p", "c1"]), ["c1"]);
  assertEquals(await marked(["-p", "e"]), ["e"]);
  const json = JSON.parse((await ctl(["profile", "list", "-o", "json", "-p", "c1"])).stdout);
  assertEquals(json.map((p: { name: string; in_use: boolean }) => [p.name, p.in_use]), [
    ["c1", true],
    ["c2", false],
    ["e", false],
  ]);
});
