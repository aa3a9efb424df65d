import { assertEquals, assertMatch } from "./assert.ts";
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

Deno.test(
  "keyring: files-key set --use-keyring and profile set --use-keyring write to a real Secret Service",
  { ignore: missingTools("dbus-run-session", "gnome-keyring-daemon") },
  async () => {
    const dbus = requireTool("dbus-run-session");
    requireTool("gnome-keyring-daemon");
    await using emulator = await startEmulator();
    const home = await Deno.makeTempDir();
    try {
      const ctl = `'${Deno.execPath()}' run -A '${ROOT}cli/main.ts'`;
      const script = [
        "printf test | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1",
        `${ctl} files-key set fk-0123456789-secret --use-keyring`,
        `${ctl} files-key get -o json`,
        `${ctl} profile set k --deployment cloud --api-key demo-key --api-secret demo-secret ` +
        `--api-url '${emulator.cloudUrl}' --use-keyring`,
        `${ctl} api cloud get /regions -q 'length(regions)'`,
        `${ctl} files-key remove --keyring`,
        `${ctl} files-key get || echo gone`,
      ].join(" && ");
      const out = await new Deno.Command(dbus, {
        args: ["--", "sh", "-c", script],
        env: { HOME: home, DENO_DIR: denoDir(), STORE_CONFIG_FILE: `${home}/config.toml`, PATH: Deno.env.get("PATH")! },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assertEquals(out.code, 0, stderr);
      const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
      assertEquals(JSON.parse(lines.slice(0, 4).join("\n")), {
        key: "fk-0…cret",
        source: "global files_api_key (keyring entry 'files-api-key')",
      });
      assertEquals(lines.slice(4), ["4", "gone"]); // the secret came from the keyring; then the key was removed
      const file = await Deno.readTextFile(`${home}/config.toml`);
      assertMatch(file, /api_secret = "keyring:k:api_secret"/);
      assertEquals(/fk-0123456789-secret|demo-secret/.test(file), false);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
);
