/**
 * The service and the emulator under abuse, on Deno and on the Node bundle: more connections
 * than descriptors, clients that idle, dribble headers or never finish a body, and SIGTERM with
 * a request in flight. Loopback only; every wait is bounded.
 */
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { EMULATOR_COMMAND, startEmulator } from "../testing/emulator_process.ts";
import { DENO_SERVER, startServer } from "../testing/server_process.ts";
import { missingTools, requireTool } from "../testing/tools.ts";
import { bundleAll } from "../tools/bundle.ts";

const encoder = new TextEncoder();

/** `command` run by bash with the open-file limit set first (`-n`: soft and hard, `-Sn`: soft only). */
const underUlimit = (flag: "-n" | "-Sn", limit: number, command: string[]) => [
  "bash",
  "-c",
  `ulimit ${flag} ${limit} && exec "$0" "$@"`,
  ...command,
];

/** How to start the server and the emulator on one runtime. */
interface Commands {
  readonly server: string[];
  readonly emulator: string[];
}

function address(url: string) {
  const { hostname, port } = new URL(url);
  return { hostname, port: Number(port) };
}

/** Opens up to `count` TCP connections; those the server refuses or drops still count as opened. */
async function openConnections(url: string, count: number): Promise<Deno.Conn[]> {
  const conns: Deno.Conn[] = [];
  for (let i = 0; i < count; i++) {
    try {
      conns.push(await Deno.connect(address(url)));
    } catch { /* refused: the backlog is full */ }
  }
  return conns;
}

function closeAll(conns: Deno.Conn[]) {
  for (const conn of conns) {
    try {
      conn.close();
    } catch { /* closed already */ }
  }
}

/** What the server sent on `conn` until it closed it, and when; `closedAfterMs` is undefined if it never did. */
async function untilClosed(conn: Deno.Conn, started: number, limitMs: number) {
  let text = "";
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(16 * 1024);
  const timer = setTimeout(() => conn.close(), limitMs);
  try {
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      text += decoder.decode(buffer.subarray(0, n));
    }
    clearTimeout(timer);
    return { text, closedAfterMs: performance.now() - started };
  } catch {
    // Reset by the server (closed), or closed here by the timer (still open).
    const timedOut = performance.now() - started >= limitMs;
    clearTimeout(timer);
    if (!timedOut) conn.close();
    return { text, closedAfterMs: timedOut ? undefined : performance.now() - started };
  }
}

/** Polls `GET /health` until it answers 200, for up to `ms`. */
async function healthyWithin(url: string, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      await res.body?.cancel();
      if (res.status === 200) return true;
    } catch { /* refused or closed at the ceiling */ }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

type Item = (commands: Commands, t: Deno.TestContext) => Promise<void>;

const ITEMS: Record<string, Item> = {
  "server: more connections than open files are refused, and service resumes": async (commands) => {
    const server = await startServer(
      underUlimit("-n", 256, commands.server),
      {},
      { captureStderr: true },
    );
    const conns = await openConnections(server.url, 300);
    try {
      assert(conns.length >= 200, `only ${conns.length} connections opened`);
      // The kernel completes a connection before the server accepts it: the last one is past the
      // ceiling once the server has caught up, and closed then.
      const { closedAfterMs } = await untilClosed(conns.at(-1)!, performance.now(), 10_000);
      assert(closedAfterMs !== undefined, "a connection past the ceiling is closed");
    } finally {
      closeAll(conns);
    }
    assert(await healthyWithin(server.url, 5000), "the server answers /health once the connections are gone");
    assertEquals(await server.stop(), 0);
    const stderr = await server.stderr();
    assertMatch(stderr, /MAX_CONNECTIONS 10000 does not fit the open-file limit of 256; serving at most 192/);
    // One line when refusing starts (not one per refused connection).
    assertEquals(stderr.match(/the ceiling \(MAX_CONNECTIONS\): closing new ones/g)?.length, 1, stderr);
  },
  "server: raises its soft open-file limit to the hard limit": async (commands) => {
    const server = await startServer(underUlimit("-Sn", 256, commands.server));
    const conns = await openConnections(server.url, 300);
    try {
      const request = encoder.encode("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n");
      await Promise.all(conns.map((conn) => conn.write(request)));
      const answers = await Promise.all(conns.map(async (conn) => {
        const buffer = new Uint8Array(1024);
        const n = await conn.read(buffer);
        return new TextDecoder().decode(buffer.subarray(0, n ?? 0)).split("\r\n")[0];
      }));
      assertEquals(answers.filter((line) => line === "HTTP/1.1 200 OK").length, 300);
    } finally {
      closeAll(conns);
    }
    assertEquals(await server.stop(), 0);
  },
  "emulator: more connections than open files do not end it": async (commands) => {
    await using emulator = await startEmulator([], underUlimit("-n", 256, commands.emulator));
    const origin = emulator.cloudUrl.replace(/\/v1$/, "");
    const conns = await openConnections(origin, 300);
    closeAll(conns);
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      try {
        const res = await fetch(`${emulator.cloudUrl}/regions`, {
          headers: { "x-api-key": "demo-key", "x-api-secret-key": "demo-secret" },
          signal: AbortSignal.timeout(1000),
        });
        await res.body?.cancel();
        status = res.status;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    assertEquals(status, 200);
  },
  "server: idle, slow-header and slow-body clients time out": async (commands, t) => {
    const server = await startServer(commands.server, {
      HEADERS_TIMEOUT_MS: "600",
      KEEP_ALIVE_TIMEOUT_MS: "400",
      BODY_TIMEOUT_MS: "1000",
      STORE_LOG: "debug",
    }, { captureStderr: true });
    try {
      await t.step("a connection that sends nothing is closed after the header timeout", async () => {
        const started = performance.now();
        const conn = await Deno.connect(address(server.url));
        const { closedAfterMs } = await untilClosed(conn, started, 5000);
        assert(closedAfterMs !== undefined && closedAfterMs >= 500, `closed after ${closedAfterMs} ms`);
      });

      await t.step("headers sent one line at a time are cut off after the header timeout", async () => {
        const started = performance.now();
        const conn = await Deno.connect(address(server.url));
        let open = true;
        const dribble = (async () => {
          await conn.write(encoder.encode("GET / HTTP/1.1\r\nHost: localhost\r\n")).catch(() => {});
          for (let i = 0; open && i < 50; i++) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            await conn.write(encoder.encode(`X-Slow-${i}: y\r\n`)).catch(() => open = false);
          }
        })();
        const { text, closedAfterMs } = await untilClosed(conn, started, 5000);
        open = false;
        await dribble;
        assert(closedAfterMs !== undefined && closedAfterMs >= 500, `closed after ${closedAfterMs} ms`);
        assert(text === "" || text.startsWith("HTTP/1.1 408 "), text);
      });

      await t.step("a chunked body that never ends gets a 408 problem after the body timeout", async () => {
        const started = performance.now();
        const conn = await Deno.connect(address(server.url));
        await conn.write(encoder.encode(
          "POST /api/RateLimited/sliding HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
        ));
        const { text, closedAfterMs } = await untilClosed(conn, started, 5000);
        assertMatch(text, /^HTTP\/1\.1 408 /);
        assertMatch(text, /content-type: application\/problem\+json/i);
        assertMatch(text, /"status":408/);
        assert(closedAfterMs !== undefined && closedAfterMs >= 900, `closed after ${closedAfterMs} ms`);
      });

      await t.step(
        "a small body that says its length and stops short gets a 408 problem after the body timeout",
        async () => {
          const started = performance.now();
          const conn = await Deno.connect(address(server.url));
          await conn.write(encoder.encode(
            'POST /tasks HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"kind":',
          ));
          const { text, closedAfterMs } = await untilClosed(conn, started, 5000);
          assertMatch(text, /^HTTP\/1\.1 408 /);
          assertMatch(text, /"status":408/);
          assert(closedAfterMs !== undefined && closedAfterMs >= 900, `closed after ${closedAfterMs} ms`);
        },
      );

      await t.step("a kept-alive connection is closed after the idle timeout", async () => {
        const conn = await Deno.connect(address(server.url));
        await conn.write(encoder.encode("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"));
        const buffer = new Uint8Array(4096);
        const n = await conn.read(buffer);
        assertMatch(new TextDecoder().decode(buffer.subarray(0, n ?? 0)), /^HTTP\/1\.1 200 /);
        const started = performance.now();
        const { closedAfterMs } = await untilClosed(conn, started, 5000);
        // Node keeps a connection a second past its keep-alive timeout (its hint to clients).
        assert(closedAfterMs !== undefined && closedAfterMs >= 300, `closed after ${closedAfterMs} ms`);
      });

      await t.step("a client leaving mid-body is one debug line, not an error", async () => {
        const conn = await Deno.connect(address(server.url));
        await conn.write(encoder.encode(
          "POST /api/RateLimited/sliding HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
        ));
        await new Promise((resolve) => setTimeout(resolve, 200));
        conn.close();
        await new Promise((resolve) => setTimeout(resolve, 300));
      });
    } finally {
      assertEquals(await server.stop(), 0);
    }
    const stderr = await server.stderr();
    assertMatch(stderr, /POST \/api\/RateLimited\/sliding: The client closed the connection before its request body/);
    assert(!/^error /m.test(stderr) && !/^\s+at /m.test(stderr), `no error line, no stack:\n${stderr}`);
  },
  "server: many never-ending bodies at once: each gets its 408, then its connection closes": async (commands) => {
    // Short timeouts put the body deadlines and the connection sweeps in the same turns of the
    // event loop: closing a connection there used to lose its answer and leave it open.
    const server = await startServer(commands.server, {
      HEADERS_TIMEOUT_MS: "5000",
      KEEP_ALIVE_TIMEOUT_MS: "100",
      BODY_TIMEOUT_MS: "30",
    });
    try {
      const answers = await Promise.all(Array.from({ length: 300 }, async () => {
        const conn = await Deno.connect(address(server.url));
        await conn.write(encoder.encode(
          "POST /api/RateLimited/sliding HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
        ));
        const { text, closedAfterMs } = await untilClosed(conn, performance.now(), 8000);
        return closedAfterMs === undefined ? "still open" : text.split("\r\n")[0] || "closed without an answer";
      }));
      const counts: Record<string, number> = {};
      for (const answer of answers) counts[answer] = (counts[answer] ?? 0) + 1;
      assertEquals(counts, { "HTTP/1.1 408 Request Timeout": 300 });
    } finally {
      assertEquals(await server.stop(), 0);
    }
  },
  "server: SIGTERM lets a request in flight finish, within SHUTDOWN_TIMEOUT_MS": async (commands, t) => {
    const chunkedPost =
      "POST /api/RateLimited/sliding HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n";

    await t.step("a request that finishes before the deadline is answered, then the server exits 0", async () => {
      const server = await startServer(commands.server, { SHUTDOWN_TIMEOUT_MS: "5000" });
      const conn = await Deno.connect(address(server.url));
      await conn.write(encoder.encode(chunkedPost));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const stopped = server.stop();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await conn.write(encoder.encode("0\r\n\r\n"));
      const { text } = await untilClosed(conn, performance.now(), 5000);
      assertMatch(text, /^HTTP\/1\.1 401 /); // the route's answer without credentials
      assertEquals(await stopped, 0);
    });

    await t.step("connections serving no request — one that never sent any included — end at once", async () => {
      const server = await startServer(commands.server, { SHUTDOWN_TIMEOUT_MS: "5000" });
      const silent = await Deno.connect(address(server.url));
      const kept = await Deno.connect(address(server.url));
      await kept.write(encoder.encode("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"));
      await kept.read(new Uint8Array(4096)); // answered; the connection stays open, kept alive
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = performance.now();
      assertEquals(await server.stop(), 0);
      const took = performance.now() - started;
      silent.close();
      kept.close();
      assert(took < 2000, `exited after ${took.toFixed(0)} ms, not at once`);
    });

    await t.step("a request still unfinished at the deadline is cut off, and the server exits 0", async () => {
      const server = await startServer(commands.server, { SHUTDOWN_TIMEOUT_MS: "1000", BODY_TIMEOUT_MS: "60000" });
      const conn = await Deno.connect(address(server.url));
      await conn.write(encoder.encode(chunkedPost));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = performance.now();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const code = await Promise.race([
        server.stop(),
        new Promise((resolve) => timer = setTimeout(() => resolve("still running after 6 s"), 6000)),
      ]);
      clearTimeout(timer);
      const took = performance.now() - started;
      conn.close();
      if (code !== 0) await server.kill();
      assertEquals(code, 0);
      assert(took >= 900 && took < 5000, `exited after ${took} ms`);
    });
  },
};

for (const [name, item] of Object.entries(ITEMS)) {
  Deno.test(`${name} (Deno)`, (t) => item({ server: DENO_SERVER, emulator: EMULATOR_COMMAND }, t));
}

Deno.test("the same on the Node bundle", { ignore: missingTools("node") }, async (t) => {
  const node = requireTool("node");
  const dir = await Deno.makeTempDir({ prefix: "serve-limits-" });
  try {
    await bundleAll(dir);
    const commands = { server: [node, `${dir}/server.mjs`], emulator: [node, `${dir}/emulator.mjs`] };
    for (const [name, item] of Object.entries(ITEMS)) await t.step(name, (t) => item(commands, t));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
