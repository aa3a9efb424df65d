/**
 * Answers to questions over the document index: the `retrieve` and `answer` task kinds, the
 * extractive answer, and a streaming client for OpenAI-compatible chat completions.
 *
 * @example
 * ```ts
 * import { createMemoryStore } from "../store/mod.ts";
 * import { createTaskRunner } from "../tasks/mod.ts";
 * import { answerTasks, type Retriever } from "./mod.ts";
 * const retriever: Retriever = {
 *   search: () => Promise.resolve([{ chunk_id: "c1", document_id: "d1", title: "Redis", source: "redis.md",
 *     text: "Redis is an in-memory store.", score: 1 }]),
 * };
 * const runner = createTaskRunner({ store: createMemoryStore(), definitions: answerTasks({ retriever }) });
 * await runner.submit({ kind: "answer", input: { question: "What is Redis?" } });
 * ```
 *
 * @module
 */
export {
  type Answer,
  type AnswerSource,
  extractiveAnswer,
  MAX_SENTENCES,
  questionTerms,
  sentences,
  wordTokens,
} from "./extractive.ts";
export { answerPrompt, type ChatMessage, type LlmConfig, LlmError, shownUrl, streamChat } from "./llm.ts";
export type { Retriever, SearchHit } from "../pipelines/mod.ts";
export { AnswerInput, type AnswerTaskOptions, answerTasks, MAX_QUESTIONS, RetrieveInput } from "./tasks.ts";
