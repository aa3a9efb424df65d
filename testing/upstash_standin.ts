/**
 * A stand-in for Upstash's REST API that forwards to a real redis-server, so the Upstash
 * adapter runs against Redis itself: `POST /` with a JSON command array, `/pipeline`,
 * `/multi-exec`, `{result}` / `{error}` replies, Bearer tokens, and base64 replies when the
 * client sends `Upstash-Encoding: base64`.
 *
 * @module
 */
import { Redis } from "ioredis";

export interface UpstashStandIn extends AsyncDisposable {
  readonly url: string;
  readonly token: string;
  /** Holds every following answer back by `ms` (or until the client gives up); 0 answers at once. */
  delay(ms: number): void;
}

type Reply = unknown;

function encode(value: Reply): Reply {
  if (typeof value === "string") return btoa(String.fromCharCode(...new TextEncoder().encode(value)));
  if (Array.isArray(value)) return value.map(encode);
  return value;
}

export async function startUpstashStandIn(redisUrl: string, token = "standin-token"): Promise<UpstashStandIn> {
  const redis = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true });
  redis.on("error", () => {});
  await redis.connect();
  const run = async (command: unknown[], base64: boolean) => {
    try {
      const [name, ...args] = command.map(String);
      const result = await redis.call(name, ...args);
      return { result: base64 ? encode(result) : result };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };
  let delayMs = 0;
  const held = new Set<() => void>(); // answers held back by delay(), released after delayMs or by delay(0)
  const release = () => {
    for (const done of [...held]) done();
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    if (delayMs > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, delayMs);
        function done() {
          clearTimeout(timer);
          held.delete(done);
          resolve();
        }
        held.add(done);
      });
    }
    if (req.headers.get("authorization") !== `Bearer ${token}`) {
      return Response.json({ error: "Unauthorized" }, { status: 401 });
    }
    const base64 = req.headers.get("upstash-encoding") === "base64";
    const body = await req.json();
    const path = new URL(req.url).pathname;
    if (path === "/pipeline" || path === "/multi-exec") {
      const replies = [];
      for (const command of body as unknown[][]) replies.push(await run(command, base64)); // in order, not atomic
      return Response.json(replies);
    }
    const reply = await run(body as unknown[], base64);
    return Response.json(reply, { status: "error" in reply ? 400 : 200 });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    token,
    delay(ms) {
      delayMs = ms;
      if (ms === 0) release();
    },
    async [Symbol.asyncDispose]() {
      release();
      await server.shutdown();
      redis.disconnect();
    },
  };
}
