/**
 * Holds idle HTTP connections for `bench/idle_bench.ts`, in its own process so that its
 * descriptors and CPU are not the server's. Reads commands on stdin, one a line:
 * `open <url> <count>` opens that many connections, sends one `GET /health` on each and keeps
 * them open (idle, kept alive), answering `held <count> <failed>`; `close` closes them all,
 * answering `closed`. Raw TCP: a connection costs one socket and a few hundred bytes here.
 *
 * @module
 */
const encoder = new TextEncoder();
let held: Deno.Conn[] = [];

async function hold(url: string): Promise<Deno.Conn> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  await conn.write(encoder.encode(`GET /health HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`));
  const buffer = new Uint8Array(1024);
  const n = await conn.read(buffer);
  if (!n || !new TextDecoder().decode(buffer.subarray(0, 12)).startsWith("HTTP/1.1 200")) {
    conn.close();
    throw new Error("no 200");
  }
  return conn;
}

async function open(url: string, count: number): Promise<number> {
  let failed = 0;
  const batch = 200; // under the listen backlog (somaxconn)
  for (let i = 0; i < count; i += batch) {
    const results = await Promise.allSettled(Array.from({ length: Math.min(batch, count - i) }, () => hold(url)));
    for (const result of results) {
      if (result.status === "fulfilled") held.push(result.value);
      else if (failed++ === 0) console.error(`idle_holder: ${result.reason?.message ?? result.reason}`);
    }
  }
  return failed;
}

for await (const line of Deno.stdin.readable.pipeThrough(new TextDecoderStream()).pipeThrough(lines())) {
  const [command, url, count] = line.trim().split(" ");
  if (command === "open") {
    const failed = await open(url, Number(count));
    console.log(`held ${held.length} ${failed}`);
  } else if (command === "close") {
    for (const conn of held) {
      try {
        conn.close();
      } catch { /* closed by the server */ }
    }
    held = [];
    console.log("closed");
  }
}

function lines(): TransformStream<string, string> {
  let rest = "";
  return new TransformStream({
    transform(chunk, controller) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop()!;
      for (const part of parts) controller.enqueue(part);
    },
  });
}
