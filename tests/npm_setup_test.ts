/**
 * The README's way in for someone with only Node and npm: in a fresh checkout (the repository's
 * files, nothing built, an empty Deno cache as on a new machine) `npm ci` builds the bundles, `npx
 * ctl` runs, and `npm link` puts a working `ctl` on PATH for a user with a fresh HOME, from any
 * directory.
 */
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { docCommands } from "../testing/doc_blocks.ts";
import { missingTools, requireTool } from "../testing/tools.ts";
import { VERSION } from "../lib/version/mod.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** The checkout's files as a clone has them: tracked and new ones, not what `.gitignore` leaves out. */
async function copyCheckout(to: string): Promise<void> {
  const { stdout } = await new Deno.Command(requireTool("git"), {
    args: ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    cwd: ROOT,
    stdout: "piped",
  }).output();
  for (const file of new TextDecoder().decode(stdout).split("\0").filter(Boolean)) {
    const info = await Deno.stat(`${ROOT}${file}`).catch(() => undefined);
    if (!info?.isFile) continue; // deleted in the working tree
    await Deno.mkdir(`${to}/${file.slice(0, file.lastIndexOf("/") + 1)}`, { recursive: true });
    await Deno.copyFile(`${ROOT}${file}`, `${to}/${file}`);
  }
}

async function run(command: string, args: string[], cwd: string, env: Record<string, string>) {
  const out = await new Deno.Command(requireTool(command), { args, cwd, env, stdout: "piped", stderr: "piped" })
    .output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  assertEquals(out.code, 0, `${command} ${args.join(" ")}:\n${text(out.stdout)}\n${text(out.stderr)}`);
  return { stdout: text(out.stdout), stderr: text(out.stderr) };
}

Deno.test("npm ci in a fresh checkout builds ctl: npx ctl works, and npm link puts it on PATH", {
  ignore: missingTools("node", "npm", "git"),
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "npm-setup-" });
  try {
    const repo = `${dir}/storectl`;
    await copyCheckout(repo);
    // A new machine: no Deno cache (so the bundling that fills it is tried for real); npm's own cache is kept.
    const fresh = { DENO_DIR: `${dir}/deno-cache`, NO_COLOR: "1" };
    const installed = await run("npm", ["ci", "--no-audit", "--no-fund"], repo, fresh);
    assert(!/npm warn/i.test(installed.stderr), `npm ci warned:\n${installed.stderr}`);
    // The README's lines, as written.
    const [npxVersion, npmLink, ctlHelp] = await docCommands("get-ctl");
    assertEquals((await run("sh", ["-c", npxVersion], repo, fresh)).stdout.trim(), VERSION);

    // `npm link` into a prefix of its own; then a user with a fresh HOME, elsewhere, has `ctl`.
    const user = { ...fresh, HOME: `${dir}/home`, npm_config_prefix: `${dir}/global` };
    await Deno.mkdir(user.HOME);
    await run("sh", ["-c", npmLink], repo, {
      ...user,
      npm_config_audit: "false",
      npm_config_fund: "false",
      npm_config_cache: `${Deno.env.get("HOME")}/.npm`,
    });
    const onPath = { ...user, PATH: `${dir}/global/bin:${Deno.env.get("PATH")}` };
    const elsewhere = await Deno.makeTempDir();
    try {
      const ctl = async (args: string) => (await run("sh", ["-c", `ctl ${args}`], elsewhere, onPath)).stdout.trim();
      assertMatch((await run("sh", ["-c", ctlHelp], elsewhere, onPath)).stdout, /^USAGE\n {2}ctl api/);
      assertEquals(await ctl("--version"), VERSION);
      assertEquals(await ctl("profile path"), `${user.HOME}/.config/storectl/config.toml`);
    } finally {
      await Deno.remove(elsewhere, { recursive: true });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
