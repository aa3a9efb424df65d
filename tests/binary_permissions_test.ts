/**
 * The permissions `deno task compile` bakes into `ctl` (`PERMISSIONS` in `tools/compile.ts`):
 * enough for every `ctl` scenario, and each one needed. `deno run` with the graph arguments of
 * `deno compile` loads what a binary embeds (every module up front, so none needs a read
 * permission to load), and checks permissions as a binary does; it needs no runtime build, so
 * this runs offline. `binary_compile_test.ts` runs a real binary where it can be built.
 *
 * @module
 */
import { GRAPH_ARGS, PERMISSIONS } from "../tools/compile.ts";
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { ctlRunner, ctlSpawner } from "../testing/ctl_process.ts";
import { SCENARIOS } from "./ctl_scenarios.ts";
import { CLOUD_SCENARIOS } from "./ctl_cloud_scenarios.ts";
import "./ctl_enterprise_scenarios.ts";
import "./ctl_support_package_scenarios.ts";
import { startEmulator } from "../testing/emulator_process.ts";

const MAIN = new URL("../cli/main.ts", import.meta.url).pathname;
const ctlWith = (permissions: readonly string[]) => [
  Deno.execPath(),
  "run",
  "--quiet",
  "--no-prompt",
  ...GRAPH_ARGS,
  ...permissions,
  MAIN,
];

Deno.test("compile permissions: every ctl scenario passes with exactly PERMISSIONS", async (t) => {
  assert(!PERMISSIONS.includes("-A") && !PERMISSIONS.includes("--allow-all"), "no -A");
  await using emulator = await startEmulator(["--tls", "--real-api", "--task-delay-ms", "200", "--debuginfo-mb", "1"]);
  const dir = await Deno.makeTempDir();
  const caFile = `${dir}/emulator-ca.pem`;
  await Deno.writeTextFile(caFile, emulator.caCert!);
  try {
    const command = ctlWith(PERMISSIONS);
    const world = { ctl: ctlRunner(dir, command), spawn: ctlSpawner(dir, command), command, emulator, dir, caFile };
    for (const [name, scenario] of Object.entries({ ...SCENARIOS, ...CLOUD_SCENARIOS })) {
      await t.step(name, () => scenario(world));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("compile permissions: without any one of them, what needs it fails and says which", async (t) => {
  await using emulator = await startEmulator(["--debuginfo-mb", "1"]);
  const dir = await Deno.makeTempDir();
  try {
    const config = `${dir}/config.toml`;
    const keyringConfig = `${dir}/keyring.toml`;
    await Deno.writeTextFile(
      config,
      `[profiles.e]\ndeployment_type = "enterprise"\nurl = "${emulator.enterpriseUrl}"\n` +
        `username = "admin@example.com"\npassword = "demo-password"\n`,
    );
    await Deno.writeTextFile(
      keyringConfig,
      `[profiles.k]\ndeployment_type = "cloud"\napi_key = "k"\napi_secret = "keyring:storectl-test-missing"\n` +
        `api_url = "${emulator.cloudUrl}"\n`,
    );
    const run = (permissions: readonly string[], args: string[], env: Record<string, string> = {}) =>
      ctlRunner(dir, ctlWith(permissions))(args, { env: { STORE_CONFIG_FILE: config, ...env } });
    const cases: Record<string, { args: string[]; env?: Record<string, string> }> = {
      "--allow-net": { args: ["api", "enterprise", "get", "/v1/cluster", "-q", "name"] },
      "--allow-read": { args: ["profile", "list", "-o", "json"] },
      "--allow-write": {
        args: ["profile", "set", "c", "--deployment", "cloud", "--api-key", "k", "--api-secret", "s"],
      },
      "--allow-env": { args: ["profile", "list", "-o", "json"] },
      "--allow-run": {
        args: ["enterprise", "support-package", "node", "1", "--no-wait", "-o", "json", "--file", "bg.tgz", "--yes"],
      },
      "--allow-ffi": { args: ["api", "cloud", "get", "/regions"], env: { STORE_CONFIG_FILE: keyringConfig } },
    };
    assertEquals(Object.keys(cases).sort(), [...PERMISSIONS].sort(), "one case per permission");
    for (const [permission, { args, env }] of Object.entries(cases)) {
      await t.step(permission, async () => {
        // The addon's loader hides Deno's "Requires ffi access" behind its own message.
        const says = permission === "--allow-ffi"
          ? /The system keyring is not available: Cannot find native binding/
          : new RegExp(`Requires ${permission.slice("--allow-".length)} access`);
        const granted = await run(PERMISSIONS, args, env);
        assert(!says.test(granted.stderr), `${permission} granted:\n${granted.stderr}`);
        if (permission === "--allow-ffi") {
          // The addon loads and asks the keyring, which has no such entry.
          assertMatch(granted.stderr, /keyring entry 'storectl-test-missing', which does not exist/);
        } else {
          assertEquals(granted.code, 0, granted.stderr);
        }
        if (permission === "--allow-run") {
          await finished(JSON.parse(granted.stdout).task_id, (a) => run(PERMISSIONS, a));
        }
        const denied = await run(PERMISSIONS.filter((p) => p !== permission), args, env);
        assert(denied.code !== 0, `${args.join(" ")} succeeded without ${permission}`);
        assertMatch(denied.stderr, says);
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Waits for the background support-package run `id` to end, so that it outlives no test. */
async function finished(id: string, ctl: (args: string[]) => Promise<{ stdout: string }>): Promise<void> {
  for (let i = 0; i < 120; i++) {
    const { status } = JSON.parse((await ctl(["enterprise", "support-package", "status", id, "-o", "json"])).stdout);
    if (status !== "in_progress") return assertEquals(status, "completed");
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`support-package run ${id} still in progress after 30 s`);
}
