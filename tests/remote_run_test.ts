import { assertEquals } from "./assert.ts";

const ROOT = new URL("..", import.meta.url).pathname;

Deno.test("ctl runs from a URL: the checkout served over HTTP, with its deno.json as the import map", async () => {
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
  const cwd = await Deno.makeTempDir(); // no deno.json here: everything comes from the URL
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--import-map", `${base}/deno.json`, `${base}/cli/main.ts`, "profile", "path"],
      cwd,
      env: { STORE_CONFIG_FILE: `${cwd}/config.toml` },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
    assertEquals(new TextDecoder().decode(out.stdout), `${cwd}/config.toml\n`);
  } finally {
    await server.shutdown();
    await Deno.remove(cwd, { recursive: true });
  }
});
