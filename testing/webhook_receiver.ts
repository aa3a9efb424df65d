/**
 * A webhook receiver for tests: a real HTTP server on loopback that verifies every delivery with
 * the official Standard Webhooks library (`standardwebhooks`), keeps what it got, and answers as
 * the test says (a status, or no answer until released).
 *
 * @module
 */
import { Webhook } from "standardwebhooks";

/** One request the receiver got. */
export interface Received {
  readonly id: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Whether the signature verified with the secret given for its URL path. */
  readonly verified: boolean;
  readonly at: number;
}

/** How the receiver answers a request: a status, or a promise it waits for first. */
export type Answer = (received: Received, count: number) => number | Promise<number>;

export interface Receiver extends AsyncDisposable {
  /** Its base URL, `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly received: Received[];
  /** Verifies what comes to `path` with `secret`. */
  secret(path: string, secret: string): void;
  answer: Answer;
}

/** Starts a receiver that answers 204 until told otherwise. */
export function startReceiver(): Receiver {
  const secrets = new Map<string, string>();
  const received: Received[] = [];
  const receiver: Receiver = {
    url: "",
    received,
    secret: (path, secret) => secrets.set(path, secret),
    answer: () => 204,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, async (request) => {
    const body = await request.text();
    const headers = Object.fromEntries(request.headers);
    const secret = secrets.get(new URL(request.url).pathname);
    let verified = false;
    try {
      if (secret) verified = (new Webhook(secret).verify(body, headers), true);
    } catch { /* a signature that does not verify */ }
    const got = { id: headers["webhook-id"], headers, body, verified, at: Date.now() };
    received.push(got);
    const status = await receiver.answer(got, received.filter((r) => r.id === got.id).length);
    return new Response(null, { status });
  });
  return Object.assign(receiver, { url: `http://127.0.0.1:${server.addr.port}` });
}
