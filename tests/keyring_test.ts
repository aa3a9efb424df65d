import { assertEquals, assertMatch } from "../testing/assert.ts";
import { startEmulator } from "../testing/emulator_process.ts";
import { missingTools, requireTool } from "../testing/tools.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** The Deno cache, kept when HOME points elsewhere (gnome-keyring stores its files under HOME). */
function denoDir(): string {
  return Deno.env.get("DENO_DIR") ??
    `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/deno`;
}

/**
 * Runs `commands` (shell, joined by `&&`) in a private D-Bus session with an unlocked
 * gnome-keyring, HOME a fresh folder whose `config.toml` is the config file; returns stdout,
 * asserting the commands succeeded.
 */
async function inSecretService(home: string, commands: string[]): Promise<string> {
  const dbus = requireTool("dbus-run-session");
  requireTool("gnome-keyring-daemon");
  const script = ["printf test | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1", ...commands]
    .join(" && ");
  const out = await new Deno.Command(dbus, {
    args: ["--", "sh", "-c", script],
    env: { HOME: home, DENO_DIR: denoDir(), STORE_CONFIG_FILE: `${home}/config.toml`, PATH: Deno.env.get("PATH")! },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

Deno.test(
  "keyring: a keyring:<name> profile value is read from a real Secret Service",
  { ignore: missingTools("dbus-run-session", "gnome-keyring-daemon") },
  async () => {
    await using emulator = await startEmulator();
    const home = await Deno.makeTempDir();
    try {
      const name = `storectl-test-${crypto.randomUUID()}`;
      await Deno.writeTextFile(
        `${home}/config.toml`,
        `[profiles.k]\ndeployment_type = "cloud"\napi_key = "demo-key"\napi_secret = "keyring:${name}"\n` +
          `api_url = "${emulator.cloudUrl}"\n`,
      );
      const deno = `'${Deno.execPath()}' run -A`;
      const stdout = await inSecretService(home, [
        `${deno} '${ROOT}testing/keyring_set.ts' '${name}' demo-secret`,
        `${deno} '${ROOT}cli/main.ts' api cloud get /regions -q 'length(regions)'`,
      ]);
      assertEquals(stdout, "8\n"); // authenticated with the secret from the keyring (the emulator has 8 regions)
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
);

Deno.test(
  "keyring: files-key set --use-keyring and profile set --use-keyring write to a real Secret Service",
  { ignore: missingTools("dbus-run-session", "gnome-keyring-daemon") },
  async () => {
    await using emulator = await startEmulator();
    const home = await Deno.makeTempDir();
    try {
      const ctl = `'${Deno.execPath()}' run -A '${ROOT}cli/main.ts'`;
      const stdout = await inSecretService(home, [
        `${ctl} files-key set fk-0123456789-secret --use-keyring`,
        `${ctl} files-key get -o json`,
        `${ctl} profile set k --deployment cloud --api-key demo-key --api-secret demo-secret ` +
        `--api-url '${emulator.cloudUrl}' --use-keyring`,
        `${ctl} api cloud get /regions -q 'length(regions)'`,
        `${ctl} files-key remove --keyring`,
        `${ctl} files-key get || echo gone`,
      ]);
      const lines = stdout.trim().split("\n");
      assertEquals(JSON.parse(lines.slice(0, 4).join("\n")), {
        key: "fk-0…cret",
        source: "global files_api_key (keyring entry 'files-api-key')",
      });
      assertEquals(lines.slice(4), ["8", "gone"]); // the secret came from the keyring; then the key was removed
      const file = await Deno.readTextFile(`${home}/config.toml`);
      assertMatch(file, /api_secret = "keyring:k:api_secret"/);
      assertEquals(/fk-0123456789-secret|demo-secret/.test(file), false);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
);
