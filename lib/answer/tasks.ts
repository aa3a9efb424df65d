import { z } from "zod";
import { inSpan } from "../tracing/mod.ts";
import { defineTask, TaskCancelledError, type TaskContext, type TaskDefinition } from "../tasks/mod.ts";
import { type Answer, type AnswerSource, extractiveAnswer, toSource, wordTokens } from "./extractive.ts";
import { answerPrompt, type LlmConfig, streamChat } from "./llm.ts";
import type { Retriever, SearchHit } from "../pipelines/mod.ts";

/** How many questions one `answer` task asks the index before it gives up. */
export const MAX_QUESTIONS = 10;

const Question = z.string().max(2_000).refine((q) => q.trim() !== "", "question must not be blank");
const K = z.number().int().min(1).max(20);

/** The input of the `answer` kind. */
export const AnswerInput = z.object({ question: Question, k: K.default(5) }).strict();
/** The input of the `retrieve` kind. */
export const RetrieveInput = z.object({ question: Question, k: K.default(5) }).strict();

/** What the `answer` and `retrieve` kinds are built from. */
export interface AnswerTaskOptions {
  readonly retriever: Retriever;
  /** When reply, a model writes the answer; otherwise it is extractive. */
  readonly llm?: LlmConfig;
  /** Used for the model's requests; default: the global `fetch`. */
  readonly fetch?: typeof fetch;
}

/**
 * The `retrieve` and `answer` task kinds.
 *
 * `retrieve` (`{question, k}`) answers `{hits}`, the retriever's best `k` chunks.
 * `answer` (`{question, k?}`) spawns `retrieve` (spawn key `retrieve`), then streams its answer as
 * `token` events and ends with `{answer, sources}`: extractive ({@link extractiveAnswer}) or, with
 * `llm`, written by the model from the numbered chunks. When nothing matches it asks for a
 * rephrased question (`input_required`); the answer (a string, or `{question}`) is retrieved again
 * by a child `retrieve-2`, `retrieve-3`… After {@link MAX_QUESTIONS} questions without a match it fails.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from "../store/mod.ts";
 * import { createTaskRunner } from "../tasks/mod.ts";
 * const retriever = { search: () => Promise.resolve([]) };
 * const runner = createTaskRunner({ store: createMemoryStore(), definitions: answerTasks({ retriever }) });
 * await runner.submit({ kind: "answer", input: { question: "What is Redis?" } });
 * ```
 */
export function answerTasks(options: AnswerTaskOptions): TaskDefinition[] {
  const retrieve = defineTask({
    kind: "retrieve",
    input: RetrieveInput,
    async run(ctx, input) {
      const found = await inSpan(
        "search",
        { attributes: { "storectl.search.k": input.k } },
        () => untilCancelled(ctx, options.retriever.search(input.question, input.k)),
      );
      const hits = found.slice(0, input.k).map(copyHit);
      await ctx.update(`${hits.length} chunk${hits.length === 1 ? "" : "s"} found`);
      return { hits };
    },
  });

  const answer = defineTask({
    kind: "answer",
    input: AnswerInput,
    async run(ctx, input) {
      let question = input.question;
      let hits: SearchHit[] = [];
      for (let n = 1;; n++) {
        const child = ctx.spawn("retrieve", { question, k: input.k }, { key: n === 1 ? "retrieve" : `retrieve-${n}` });
        hits = ((await untilCancelled(ctx, Promise.resolve(child))).hits ?? []) as SearchHit[];
        if (hits.length > 0) break;
        if (n === MAX_QUESTIONS) {
          throw new Error(
            `No document matched any of the ${MAX_QUESTIONS} questions asked; ingest documents that cover the ` +
              "subject (POST /pipelines/run) or ask about what the index holds",
          );
        }
        question = await askAgain(ctx, `No document matches "${question}". Rephrase the question`);
      }
      const result = options.llm
        ? await generate(ctx, options.llm, options.fetch ?? fetch, question, hits)
        : extractiveAnswer(question, hits);
      if (!options.llm) { for (const token of wordTokens(result.answer)) await ctx.token(token); }
      return result;
    },
  });
  return [answer, retrieve];
}

/** Asks until the answer is a usable question: a string, or an object with a `question` string. */
async function askAgain(ctx: TaskContext, prompt: string): Promise<string> {
  let ask = `${prompt} (send {"input": "<new question>"}).`;
  for (;;) {
    const reply = await ctx.requestInput(ask);
    const text = typeof reply === "string" ? reply : (reply as { question?: unknown } | null)?.question;
    const parsed = Question.safeParse(text);
    if (parsed.success) return parsed.data;
    ask = `${prompt}: the input must be the new question as a string of 1 to 2000 characters, ` +
      `or {"question": "…"}; got ${JSON.stringify(reply)?.slice(0, 100)}.`;
  }
}

/** Streams the model's answer as tokens; the sources are the hits, numbered as in the prompt. */
async function generate(
  ctx: TaskContext,
  llm: LlmConfig,
  fetchFn: typeof fetch,
  question: string,
  hits: readonly SearchHit[],
): Promise<Answer> {
  const numbered = [...new Map(hits.map((hit) => [hit.chunk_id, hit])).values()];
  const sources: AnswerSource[] = numbered.map(toSource);
  let text = "";
  try {
    for await (
      const delta of streamChat(llm, answerPrompt(question, numbered), { fetch: fetchFn, signal: ctx.signal })
    ) {
      text += delta;
      await ctx.token(delta);
    }
  } catch (error) {
    if (ctx.signal.aborted) throw new TaskCancelledError(ctx.taskId);
    throw error;
  }
  return { answer: text, sources };
}

/** The promise, or a {@link TaskCancelledError} as soon as the task is cancelled. */
function untilCancelled<T>(ctx: TaskContext, promise: Promise<T>): Promise<T> {
  if (ctx.signal.aborted) return Promise.reject(new TaskCancelledError(ctx.taskId));
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(new TaskCancelledError(ctx.taskId));
    ctx.signal.addEventListener("abort", abort, { once: true });
    promise.then(resolve, reject).finally(() => ctx.signal.removeEventListener("abort", abort));
  });
}

const copyHit = (hit: SearchHit): SearchHit => ({
  chunk_id: hit.chunk_id,
  document_id: hit.document_id,
  title: hit.title,
  source: hit.source,
  text: hit.text,
  score: hit.score,
});
