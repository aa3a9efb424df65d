import { assertEquals } from "./assert.ts";
import { startEmulator } from "./emulator_process.ts";
import { missingTools, requireTool } from "./tools.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** The Deno cache, kept when HOME points elsewhere (gnome-keyring stores its files under HOME). */
function denoDir(): string {
  return Deno.env.get("DENO_DIR") ??
    `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/deno`;
}

Deno.test(
  "keyring: a keyring:<name> profile value is read from a real Secret Service",
  { ignore: missingTools("dbus-run-session", "gnome-keyring-daemon") },
  async () => {
    const dbus = requireTool("dbus-run-session");
    requireTool("gnome-keyring-daemon");
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
      const script = [
        "printf test | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1",
        `${deno} '${ROOT}tests/keyring_set.ts' '${name}' demo-secret`,
        `${deno} '${ROOT}cli/main.ts' api cloud get /regions -q 'length(regions)'`,
      ].join(" && ");
      const out = await new Deno.Command(dbus, {
        args: ["--", "sh", "-c", script],
        env: { HOME: home, DENO_DIR: denoDir(), STORE_CONFIG_FILE: `${home}/config.toml` },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
      assertEquals(new TextDecoder().decode(out.stdout), "4\n"); // authenticated with the secret from the keyring
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
);
