import { assertEquals, assertMatch } from "../testing/assert.ts";
import { DENO_SERVER, startServer } from "../testing/server_process.ts";

Deno.test("server process: starts on the embedded store, answers /health, stops on SIGTERM", async () => {
  const server = await startServer(DENO_SERVER);
  const res = await fetch(`${server.url}/health`);
  assertEquals(await res.json(), { status: "healthy", store: "memory" });
  assertEquals(await server.stop(), 0);
});

Deno.test("server process: an invalid PORT exits 2 naming the variable", async () => {
  const out = await new Deno.Command(DENO_SERVER[0], {
    args: DENO_SERVER.slice(1),
    env: { PORT: "eighty" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(out.code, 2);
  assertMatch(new TextDecoder().decode(out.stderr), /PORT must be a whole number/);
});

Deno.test("server process: a port in use exits 1 with one line naming the address and the fix", async () => {
  using held = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (held.addr as Deno.NetAddr).port;
  const out = await new Deno.Command(DENO_SERVER[0], {
    args: DENO_SERVER.slice(1),
    env: { PORT: String(port) },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals([out.code, new TextDecoder().decode(out.stderr)], [
    1,
    `storectl server cannot listen on 127.0.0.1:${port}: the address is already in use; ` +
    "stop the other process or set PORT (0 picks a free port)\n",
  ]);
});

Deno.test("server process: requests with a body of unknown length (a 405, a chunked POST) print no Deno warning", async () => {
  const server = await startServer(DENO_SERVER, {}, { captureStderr: true });
  const { hostname, port } = new URL(server.url);
  // What `curl -X PUT` sends: no Content-Length, no body.
  const conn = await Deno.connect({ hostname, port: Number(port) });
  await conn.write(new TextEncoder().encode(
    `PUT /api/RateLimited/sliding HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`,
  ));
  const answer = await new Response(conn.readable).text();
  assertMatch(answer, /^HTTP\/1\.1 405 /);
  const chunked = await fetch(`${server.url}/health`, {
    method: "POST",
    body: ReadableStream.from([new TextEncoder().encode("{}")]),
  });
  assertEquals([chunked.status, (await chunked.json()).status], [405, 405]);
  assertEquals(await server.stop(), 0);
  assertEquals(await server.stderr(), "");
});
