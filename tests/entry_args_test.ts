/**
 * The service's and the emulator's command lines as a person meets them through npm: `--help`
 * prints help that fits the terminal and exits, an unknown flag says so and points at `--help`,
 * and relative paths (`--ca-out`, `SERVICE_TOKENS_FILE`) resolve from where the command was run,
 * the absolute path shown when they do not work.
 */
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { sha256Hex } from "../server/auth/tokens.ts";
import { startServer } from "../testing/server_process.ts";
import { missingTools, requireTool } from "../testing/tools.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** `npm --prefix <checkout> <args>` run from `cwd` to its end: code, stdout, stderr. */
async function npm(args: string[], cwd: string, env: Record<string, string> = {}) {
  const out = await new Deno.Command(requireTool("npm"), {
    args: ["--prefix", ROOT, "--silent", ...args],
    cwd,
    env: { PORT: "0", NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(30_000),
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

const longest = (text: string) => Math.max(...text.split("\n").map((line) => [...line].length));

for (const [name, script] of [["npm start", "start"], ["npm run emulator", "emulator"]] as const) {
  Deno.test(`${name} -- --help prints help within 80 columns and exits 0; an unknown flag points at --help`, {
    ignore: missingTools("npm", "node"),
  }, async () => {
    const help = await npm(["run", script, "--", "--help"], ROOT);
    assertEquals(help.code, 0, help.stderr);
    assertMatch(help.stdout, /--help/);
    assert(longest(help.stdout) <= 80, `a line is ${longest(help.stdout)} columns:\n${help.stdout}`);
    const bogus = await npm(["run", script, "--", "--bogus"], ROOT);
    assertEquals(bogus.code, 2, bogus.stdout + bogus.stderr);
    assertMatch(bogus.stderr, /--bogus/);
    assertMatch(bogus.stderr, /--help/);
  });
}

Deno.test(
  "npm start: a relative SERVICE_TOKENS_FILE is read from where npm was run; a missing one names the absolute path",
  {
    ignore: missingTools("npm", "node"),
  },
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "entry-args-" });
    try {
      const token = `t-${crypto.randomUUID()}`;
      await Deno.writeTextFile(
        `${dir}/tokens.json`,
        JSON.stringify([{ name: "ci", tenant: "acme", scopes: ["admin"], sha256: sha256Hex(token) }]),
      );
      const missing = await npm(["start"], dir, { SERVICE_TOKENS_FILE: "missing.json" });
      assertEquals(missing.code, 2, missing.stderr);
      assertMatch(missing.stderr, new RegExp(`SERVICE_TOKENS_FILE '${dir}/missing\\.json' cannot be read`));
      await using server = await startServer([requireTool("npm"), "--prefix", ROOT, "--silent", "start"], {
        SERVICE_TOKENS_FILE: "tokens.json",
      }, { cwd: dir });
      assertMatch(server.banner, /\[1 token\]/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test("npm run emulator -- --tls --ca-out rel.pem writes the certificate where npm was run", {
  ignore: missingTools("npm", "node"),
}, async () => {
  const dir = await Deno.makeTempDir({ prefix: "entry-args-" });
  try {
    const command = [requireTool("npm"), "--prefix", ROOT, "--silent", "run", "emulator", "--"];
    await using emulator = await startServer(
      [...command, "--tls", "--ca-out", "emulator-ca.pem", "--cloud-port", "0", "--enterprise-port", "0"],
      {},
      { cwd: dir, ready: /Press Ctrl\+C/ },
    );
    assertMatch(await Deno.readTextFile(`${dir}/emulator-ca.pem`), /BEGIN CERTIFICATE/);
    assertMatch(emulator.banner, new RegExp(`${dir}/emulator-ca\\.pem`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
