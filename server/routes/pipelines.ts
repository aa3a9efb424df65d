import { createRoute, type Hook, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, Env } from "hono";
import {
  DocumentInput,
  PIPELINE_KINDS,
  PipelineInputError,
  type PipelineSource,
  PrepareInput,
  RunInput,
  type SearchIndex,
} from "../../lib/pipelines/mod.ts";
import { type DocumentStore, StoreUnavailableError } from "../../lib/store/mod.ts";
import { TaskInputError, type TaskRunner } from "../../lib/tasks/mod.ts";
import { problem } from "../errors.ts";
import { json, problemResponse } from "./responses.ts";

/** The most hits `GET /pipelines/search` returns. */
export const MAX_SEARCH_K = 100;

const Submitted = z.object({ task_id: z.string() }).openapi("PipelineTask");
const Status = z.object({
  chunks: z.number().int(),
  documents: z.number().int(),
  staged_chunks: z.number().int(),
  state: z.string().openapi({ description: "idle, preparing, ingesting, failed or cancelled" }),
  last_task_id: z.string().nullable(),
  updated_at: z.string().nullable(),
}).openapi("PipelineStatus");
const Hit = z.object({
  chunk_id: z.string(),
  document_id: z.string(),
  title: z.string(),
  source: z.string(),
  text: z.string(),
  score: z.number(),
}).openapi("SearchHit");
const SearchQuery = z.object({
  q: z.string().trim().min(1, "q must not be empty").max(1_000, "q must be at most 1000 characters"),
  k: z.string().regex(/^\d+$/, "k must be a whole number").transform(Number).refine(
    (k) => k >= 1 && k <= MAX_SEARCH_K,
    `k must be from 1 to ${MAX_SEARCH_K}`,
  ).optional(),
});
const submitted = {
  201: json(Submitted, "The background task, queued; follow it at /tasks/{task_id}/stream"),
  413: problemResponse("The body is over the limit"),
  422: problemResponse("Invalid input; `errors` names each field"),
};
const body = <T extends z.ZodType>(schema: T, required = true) => ({
  body: { required, content: { "application/json": { schema } } },
});

/** What the pipeline routes work with. */
export interface PipelineRouteDeps {
  readonly runner: () => TaskRunner;
  readonly documents: DocumentStore;
  readonly search: () => SearchIndex;
  /** The source folder (`PIPELINE_SOURCE_DIR`); prepare and full answer 409 without one. */
  readonly source?: PipelineSource;
}

/**
 * The pipeline API as a sub-app: `POST /pipelines/{run,prepare,ingest,full,documents}` submit
 * background tasks (201 `{task_id}`), `POST /pipelines/clear` (200 `{cleared_chunks}`),
 * `GET /pipelines/status` and `GET /pipelines/search?q=&k=`.
 */
export function pipelineRoutes<E extends Env>(
  deps: PipelineRouteDeps,
  defaultHook: Hook<unknown, E, string, unknown>,
): OpenAPIHono<E> {
  const app = new OpenAPIHono<E>({ defaultHook });
  const submit = async (c: Context, kind: string, input: unknown) => {
    try {
      const task = await deps.runner().submit({ kind, input, metadata: { message: `pipeline ${kind}` } });
      return c.json({ task_id: task.task_id }, 201, { location: `/tasks/${task.task_id}` });
    } catch (error) {
      if (!(error instanceof TaskInputError)) throw error;
      return problem(c, 422, error.message, { errors: [...error.errors] });
    }
  };
  /** Checks the path before queueing, so an escape is a 422 now rather than a failed task later. */
  const fromSource = async (c: Context, kind: string, input: z.output<typeof PrepareInput>) => {
    if (!deps.source) {
      return problem(c, 409, "No source folder is configured: set PIPELINE_SOURCE_DIR and restart the server");
    }
    try {
      await deps.source.resolve(input.path);
    } catch (error) {
      if (!(error instanceof PipelineInputError)) throw error;
      return problem(c, 422, error.message, { errors: [...error.errors] });
    }
    return submit(c, kind, input);
  };

  app.openapi(
    createRoute({
      method: "post",
      path: "/pipelines/run",
      summary: "Prepare and ingest inline documents",
      request: body(RunInput),
      responses: submitted,
    }),
    (c) => submit(c, PIPELINE_KINDS.run, c.req.valid("json")) as never,
  );
  app.openapi(
    createRoute({
      method: "post",
      path: "/pipelines/documents",
      summary: "Add (or replace) one document",
      request: body(DocumentInput),
      responses: submitted,
    }),
    (c) => submit(c, PIPELINE_KINDS.document, c.req.valid("json")) as never,
  );
  for (
    const [path, kind, summary] of [
      ["/pipelines/prepare", PIPELINE_KINDS.prepare, "Stage 1: chunk the source folder into the staging area"],
      ["/pipelines/full", PIPELINE_KINDS.full, "Both stages: prepare, then ingest"],
    ] as const
  ) {
    app.openapi(
      createRoute({
        method: "post",
        path,
        summary,
        request: body(PrepareInput, false),
        responses: { ...submitted, 409: problemResponse("No source folder is configured") },
      }),
      async (c) => await fromSource(c, kind, PrepareInput.parse(c.req.valid("json") ?? {})) as never,
    );
  }
  app.openapi(
    createRoute({
      method: "post",
      path: "/pipelines/ingest",
      summary: "Stage 2: move the staged documents into the index",
      responses: submitted,
    }),
    (c) => submit(c, PIPELINE_KINDS.ingest, {}) as never,
  );
  app.openapi(
    createRoute({
      method: "post",
      path: "/pipelines/clear",
      summary: "Remove every document, chunk and staged document",
      responses: { 200: json(z.object({ cleared_chunks: z.number().int() }), "What was removed") },
    }),
    async (c) => c.json({ cleared_chunks: await deps.documents.clear() }, 200),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/pipelines/status",
      summary: "Pipeline status",
      responses: { 200: json(Status, "Counts and the last pipeline task") },
    }),
    async (c) => c.json(await deps.documents.status(), 200),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/pipelines/search",
      summary: "The chunks that best match a query (BM25, prefix and fuzzy matching)",
      request: { query: SearchQuery },
      responses: {
        200: json(z.object({ query: z.string(), k: z.number().int(), hits: z.array(Hit) }), "Best first"),
        422: problemResponse("Missing or invalid q or k"),
      },
    }),
    async (c) => {
      const { q, k = 5 } = c.req.valid("query");
      return c.json({ query: q, k, hits: await deps.search().search(q, k) }, 200);
    },
  );
  app.onError((error, c) => {
    if (!(error instanceof StoreUnavailableError)) throw error;
    return problem(c, 503, `The document store did not answer: ${error.message}. Try again shortly`, {
      headers: { "retry-after": "1" },
    });
  });
  return app;
}
