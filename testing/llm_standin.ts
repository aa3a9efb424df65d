/**
 * A stand-in for an OpenAI-compatible model server, for tests: a real HTTP server on 127.0.0.1
 * answering `POST /v1/chat/completions` with a streamed chat completion (`data: {choices:[{delta:
 * {content}}]}` lines, then `data: [DONE]`). It checks `Authorization: Bearer <apiKey>` when given
 * one, sends the configured deltas `delayMs` apart, and records each request and whether its
 * client closed the connection before the end.
 *
 * @example
 * ```ts
 * await using llm = await startLlmStandIn({ deltas: ["Hel", "lo"], apiKey: "sk-test" });
 * // LLM_BASE_URL=llm.url LLM_MODEL=standin LLM_API_KEY=sk-test
 * ```
 *
 * @module
 */

/** What the stand-in answers; every field can be changed between requests with `configure()`. */
export interface LlmStandInOptions {
  /** The text fragments streamed, one `data:` line each. Default `["Hello", " world"]`. */
  deltas?: string[];
  /** Pause between deltas (the first goes at once). Default 0. */
  delayMs?: number;
  /** When set, requests without `Authorization: Bearer <apiKey>` get a 401. */
  apiKey?: string;
  /** Answer this HTTP status with `{error: {message}}` instead of a stream. */
  failStatus?: number;
  /** Send these raw lines (each followed by a blank line) instead of the deltas and `[DONE]`. */
  rawLines?: string[];
}

/** One request as the stand-in saw it. */
export interface LlmRequest {
  readonly path: string;
  readonly authorization: string | null;
  readonly body: { model?: string; stream?: boolean; messages?: { role: string; content: string }[] };
  /** True once the client closed the connection before the stream ended. */
  disconnected: boolean;
  /** True once the whole stream was sent. */
  completed: boolean;
}

export interface LlmStandIn extends AsyncDisposable {
  /** The API base, ending in `/v1` (what `LLM_BASE_URL` takes). */
  readonly url: string;
  readonly requests: LlmRequest[];
  configure(options: LlmStandInOptions): void;
  /** Resolves when a client has closed a connection mid-stream. */
  disconnected(): Promise<LlmRequest>;
}

const encoder = new TextEncoder();

export function startLlmStandIn(initial: LlmStandInOptions = {}): Promise<LlmStandIn> {
  let options: LlmStandInOptions = { ...initial };
  const requests: LlmRequest[] = [];
  const waiters: ((request: LlmRequest) => void)[] = [];
  const markDisconnected = (request: LlmRequest) => {
    if (request.completed || request.disconnected) return;
    request.disconnected = true;
    for (const wake of waiters.splice(0)) wake(request);
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const body = await req.json().catch(() => ({}));
    const request: LlmRequest = {
      path,
      authorization: req.headers.get("authorization"),
      body,
      disconnected: false,
      completed: false,
    };
    requests.push(request);
    const { deltas = ["Hello", " world"], delayMs = 0, apiKey, failStatus, rawLines } = options;
    const error = (status: number, message: string) => Response.json({ error: { message } }, { status });
    if (req.method !== "POST" || path !== "/v1/chat/completions") return error(404, `No route for ${path}`);
    if (apiKey && request.authorization !== `Bearer ${apiKey}`) return error(401, "Incorrect API key provided");
    if (failStatus) return error(failStatus, "The stand-in was told to fail");
    const lines = rawLines ?? [
      ...deltas.map((content) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}`),
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}`,
      "data: [DONE]",
    ];
    let i = 0;
    let wake = () => {};
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (i === lines.length) {
          request.completed = true;
          return controller.close();
        }
        if (delayMs > 0 && i > 0 && !rawLines) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, delayMs);
            wake = () => (clearTimeout(timer), resolve()); // a client gone needs no more waiting
          });
        }
        if (request.disconnected) return;
        controller.enqueue(encoder.encode(`${lines[i++]}\n\n`));
      },
      cancel() {
        markDisconnected(request);
        wake();
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  });
  return Promise.resolve({
    url: `http://127.0.0.1:${server.addr.port}/v1`,
    requests,
    configure(next) {
      options = { ...options, ...next };
    },
    disconnected() {
      const gone = requests.find((r) => r.disconnected);
      return gone ? Promise.resolve(gone) : new Promise((resolve) => waiters.push(resolve));
    },
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  });
}
