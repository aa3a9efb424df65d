/**
 * `ctl` the Deno way, as the README tells people to run it: from a URL, and on PATH through
 * `deno install -g` (from the checkout and from a URL), into a temporary `DENO_INSTALL_ROOT`.
 */
import { assertEquals } from "../testing/assert.ts";
import { docCommands } from "../testing/doc_blocks.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** The checkout served over HTTP on 127.0.0.1, as a user's web server would serve it. */
function serveCheckout(): Deno.HttpServer<Deno.NetAddr> & { base: string } {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = decodeURIComponent(new URL(req.url).pathname);
    if (path.includes("..")) return new Response("no", { status: 400 });
    try {
      const type = path.endsWith(".json") ? "application/json" : "application/typescript";
      return new Response(await Deno.readFile(`${ROOT}${path}`), { headers: { "content-type": type } });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  return Object.assign(server, { base: `http://127.0.0.1:${server.addr.port}` });
}

async function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const out = await new Deno.Command(command, {
    args,
    cwd,
    env: { STORE_CONFIG_FILE: `${cwd}/config.toml`, ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  assertEquals(out.code, 0, `${command} ${args.join(" ")}: ${text(out.stderr)}`);
  return text(out.stdout);
}

Deno.test("ctl runs from a URL: the checkout served over HTTP, with its deno.json as the import map", async () => {
  await using server = serveCheckout();
  const cwd = await Deno.makeTempDir(); // no deno.json here: everything comes from the URL
  try {
    const args = [
      "run",
      "-A",
      "--import-map",
      `${server.base}/deno.json`,
      `${server.base}/cli/main.ts`,
      "profile",
      "path",
    ];
    assertEquals(await run(Deno.execPath(), args, cwd), `${cwd}/config.toml\n`);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

Deno.test("deno install -g puts ctl on PATH, from the checkout (with its deno.json) and from a URL", async () => {
  await using server = serveCheckout();
  const cwd = await Deno.makeTempDir();
  try {
    // From the checkout, docs/ctl.md's line as written; from a URL, its import-map form.
    const [fromCheckout] = await docCommands("deno-install");
    const denoDir = Deno.execPath().slice(0, Deno.execPath().lastIndexOf("/"));
    const withDeno = { PATH: `${denoDir}:${Deno.env.get("PATH")}` };
    await run("sh", ["-c", fromCheckout], ROOT, { ...withDeno, DENO_INSTALL_ROOT: `${cwd}/checkout` });
    const url = [
      "install",
      "-g",
      "-A",
      "--name",
      "ctl",
      "--import-map",
      `${server.base}/deno.json`,
      `${server.base}/cli/main.ts`,
    ];
    await run(Deno.execPath(), url, cwd, { DENO_INSTALL_ROOT: `${cwd}/url` });
    for (const name of ["checkout", "url"]) {
      assertEquals(await run(`${cwd}/${name}/bin/ctl`, ["profile", "path"], cwd), `${cwd}/config.toml\n`, name);
    }
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});
