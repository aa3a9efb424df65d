import { StoreCtlError } from "../errors/mod.ts";
import { activeTrace, inSpan, SpanKind } from "../tracing/mod.ts";
import type { SearchHit } from "../pipelines/mod.ts";

/** An OpenAI-compatible chat-completions endpoint (`LLM_BASE_URL`, `LLM_MODEL`, `LLM_API_KEY`). */
export interface LlmConfig {
  /** The API base, e.g. `http://127.0.0.1:11434/v1`; requests go to `{baseUrl}/chat/completions`. */
  readonly baseUrl: string;
  readonly model: string;
  /** Sent as `Authorization: Bearer <apiKey>`; never written into messages. */
  readonly apiKey?: string;
  /** A model that sends nothing for this long (before its answer starts, or between two chunks) fails. Default 60 s. */
  readonly idleTimeoutMs?: number;
}

/** One chat message. */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** The model failed: an HTTP error, an unreachable endpoint or a stream it could not read. */
export class LlmError extends StoreCtlError {
  constructor(message: string, status?: number) {
    super(status === undefined ? "network" : "api", message, { status });
    this.name = "LlmError";
  }
}

const SYSTEM_PROMPT = "You answer questions using only the numbered sources the user gives. " +
  "Cite each source you use with its marker, like [1]. " +
  "If the sources do not hold the answer, say so in one sentence. Be concise.";

/**
 * The messages asking the model to answer `question` from `hits`, numbered `[1]`, `[2]`… in
 * their order (the order of the answer's `sources`).
 *
 * @example
 * ```ts
 * const messages = answerPrompt("What is Redis?", [
 *   { chunk_id: "c1", document_id: "d1", title: "Redis", source: "redis.md", text: "Redis is a store.", score: 1 },
 * ]);
 * ```
 */
export function answerPrompt(question: string, hits: readonly SearchHit[]): ChatMessage[] {
  const sources = hits.map((hit, i) => `[${i + 1}] ${hit.title} (${hit.source})\n${hit.text.trim()}`).join("\n\n");
  return [
    { role: "system", content: SYSTEM_PROMPT },
    { role: "user", content: `Sources:\n\n${sources}\n\nQuestion: ${question}` },
  ];
}

/** The URL as it may be shown: user name and password replaced by `***`. */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username || parsed.password) {
      parsed.username = "***";
      parsed.password = "";
    }
    return parsed.href;
  } catch {
    return url;
  }
}

const STATUS_TIPS: Record<number, string> = {
  400: "check LLM_MODEL and that the endpoint speaks the chat-completions protocol",
  401: "check LLM_API_KEY",
  403: "check LLM_API_KEY and the key's access to LLM_MODEL",
  404: "check LLM_BASE_URL (usually ending in /v1) and LLM_MODEL",
  429: "the model is rate limited or out of quota; try again later",
};

/**
 * Streams a chat completion: POST `{baseUrl}/chat/completions` with `stream: true`, yielding each
 * `choices[0].delta.content` of the `data:` lines until `data: [DONE]`. Aborting `signal` closes the
 * connection at once. Throws {@link LlmError} naming the URL (never the key) on an HTTP error, an
 * unreachable endpoint, a line that is not JSON, an error object in the stream, a stream that
 * ends before `[DONE]` or a `finish_reason`, one with no text, or a model silent for `idleTimeoutMs`.
 *
 * @example
 * ```ts
 * const config = { baseUrl: "http://127.0.0.1:11434/v1", model: "llama3" };
 * for await (const text of streamChat(config, [{ role: "user", content: "Hi" }], { fetch })) {
 *   console.log(text);
 * }
 * ```
 */
export async function* streamChat(
  config: LlmConfig,
  messages: readonly ChatMessage[],
  options: { fetch: typeof fetch; signal?: AbortSignal },
): AsyncGenerator<string> {
  const url = `${config.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const where = `The model at ${shownUrl(url)}`;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  const hide = (text: string) => config.apiKey ? text.replaceAll(config.apiKey, "***") : text;
  // A model that stops sending (overloaded, a stalled proxy) would otherwise hold the task forever.
  const idleMs = config.idleTimeoutMs ?? 60_000;
  const idle = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), idleMs);
  };
  const quiet = () =>
    new LlmError(`${where} sent nothing for ${idleMs / 1000} s; try again later, or another LLM_MODEL`);
  const signal = options.signal ? AbortSignal.any([options.signal, idle.signal]) : idle.signal;
  arm();
  try {
    let response: Response;
    try {
      const attributes = { "gen_ai.request.model": config.model };
      response = await inSpan("llm chat", { kind: SpanKind.CLIENT, attributes }, () =>
        options.fetch(url, {
          method: "POST",
          headers: { ...headers, ...activeTrace() },
          body: JSON.stringify({ model: config.model, messages, stream: true }),
          signal,
        }));
    } catch (error) {
      if (options.signal?.aborted) throw error;
      if (idle.signal.aborted) throw quiet();
      throw new LlmError(`${where} cannot be reached: ${hide((error as Error).message)}; check LLM_BASE_URL`);
    }
    if (!response.ok) {
      const body = hide((await response.text().catch(() => "")).replace(/\s+/g, " ").trim()).slice(0, 300);
      const tip = STATUS_TIPS[response.status] ?? (response.status >= 500 ? "the model server failed; try again" : "");
      throw new LlmError(
        `${where} answered HTTP ${response.status}${body ? `: ${body}` : ""}${tip ? `; ${tip}` : ""}`,
        response.status,
      );
    }
    const type = response.headers.get("content-type") ?? "";
    if (!type.includes("text/event-stream")) {
      await response.body?.cancel();
      throw new LlmError(
        `${where} answered with content-type '${type || "(none)"}', not a text/event-stream; check that LLM_BASE_URL ` +
          "is an OpenAI-compatible endpoint that supports stream: true",
      );
    }
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let finished = false;
    let text = "";
    try {
      const read = async () => {
        try {
          const chunk = await reader.read();
          arm();
          return chunk;
        } catch (error) {
          if (options.signal?.aborted) throw error;
          if (idle.signal.aborted) throw quiet();
          throw new LlmError(`${where} broke off its stream: ${hide((error as Error).message)}`);
        }
      };
      for await (const data of eventData(read)) {
        if (data === "[DONE]") {
          finished = true;
          break;
        }
        let parsed: { choices?: { delta?: { content?: unknown }; finish_reason?: unknown }[]; error?: unknown };
        try {
          parsed = JSON.parse(data);
        } catch {
          throw new LlmError(`${where} sent a stream event that is not JSON: ${hide(data).slice(0, 200)}`);
        }
        if (parsed.error !== undefined) {
          const error = parsed.error as { message?: unknown };
          const message = typeof error?.message === "string" ? error.message : JSON.stringify(parsed.error);
          throw new LlmError(`${where} reported an error in its stream: ${hide(message).slice(0, 300)}`);
        }
        const choice = parsed.choices?.[0];
        if (typeof choice?.delta?.content === "string" && choice.delta.content !== "") {
          text += choice.delta.content;
          yield choice.delta.content;
        }
        if (choice?.finish_reason) finished = true;
      }
      if (!finished) throw new LlmError(`${where} ended its stream before data: [DONE]; the answer may be cut`);
      if (text.trim() === "") throw new LlmError(`${where} sent an empty answer; check LLM_MODEL`);
    } finally {
      await reader.cancel().catch(() => {});
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The `data` of each Server-Sent Event read by `read` (its `data:` lines joined by newlines, dispatched
 * at a blank line or at the end); comments, `event:`, `id:` and `retry:` lines are skipped.
 */
async function* eventData(read: () => Promise<ReadableStreamReadResult<string>>): AsyncGenerator<string> {
  let buffer = "";
  let data: string[] = [];
  for (;;) {
    const chunk = await read();
    if (chunk.done) break;
    buffer += chunk.value;
    let end;
    while ((end = buffer.search(/\r\n|\n|\r(?=.)/s)) !== -1) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(buffer.startsWith("\r\n", end) ? end + 2 : end + 1);
      if (line === "") {
        if (data.length > 0) yield data.join("\n");
        data = [];
      } else if (line.startsWith("data:")) {
        data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
      }
    }
  }
  if (buffer.startsWith("data:")) data.push(buffer.slice(buffer.startsWith("data: ") ? 6 : 5));
  if (data.length > 0) yield data.join("\n");
}
