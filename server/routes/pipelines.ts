import { createRoute, type Hook, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, Env } from "hono";
import {
  DocumentInput,
  MAX_QUERY_TERMS,
  PIPELINE_KINDS,
  type PipelineSource,
  PrepareInput,
  queryTerms,
  RunInput,
} from "../../lib/pipelines/mod.ts";
import type { ScopeOf } from "../scope.ts";
import { Conflict } from "../errors.ts";
import { createdHeaders, DEFAULT_IDEMPOTENCY_TTL_MS, IdempotencyHeaders, idempotent } from "./idempotency.ts";
import { needs } from "../auth/scopes.ts";
import { json, jsonBodyProblems, problemResponse } from "./responses.ts";

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
  source_folder: z.boolean().openapi({
    description: "Whether the service has a source folder (PIPELINE_SOURCE_DIR) for prepare and full to read",
  }),
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
  q: z.string().trim().min(1, "q must not be empty").max(1_000, "q must be at most 1000 characters").superRefine(
    (q, ctx) => {
      const terms = queryTerms(q).length;
      if (terms > MAX_QUERY_TERMS) {
        ctx.addIssue({
          code: "custom",
          message: `q has ${terms} distinct terms; at most ${MAX_QUERY_TERMS} are searched: shorten the query`,
        });
      }
    },
  ),
  k: z.string().regex(/^\d+$/, "k must be a whole number").transform(Number).refine(
    (k) => k >= 1 && k <= MAX_SEARCH_K,
    `k must be from 1 to ${MAX_SEARCH_K}`,
  ).optional(),
});
const submitted = {
  200: json(
    Submitted,
    "The task an earlier request with the same Idempotency-Key created (`Idempotent-Replayed: true`)",
  ),
  201: json(Submitted, "The background task, queued; follow it at /tasks/{task_id}/stream"),
  409: problemResponse("The Idempotency-Key was used for a different request, or its request is still being handled"),
  ...jsonBodyProblems,
  422: problemResponse("Invalid input; `errors` names each field"),
};
const body = <T extends z.ZodType>(schema: T, required = true) => ({
  headers: IdempotencyHeaders,
  body: { required, content: { "application/json": { schema } } },
});

/** What the pipeline routes work with. */
export interface PipelineRouteDeps {
  /** A request's tenant's documents, search index, runner, tasks and `Idempotency-Key`s. */
  readonly scopeOf: ScopeOf;
  /** How long an `Idempotency-Key` is remembered; default a day. */
  readonly idempotencyTtlMs?: number;
  /** The source folder (`PIPELINE_SOURCE_DIR`), one for every tenant; prepare and full answer 409 without one. */
  readonly source?: PipelineSource;
}

const RUN = createRoute({
  method: "post",
  path: "/pipelines/run",
  security: needs("pipelines:write"),
  summary: "Prepare and ingest inline documents",
  request: body(RunInput),
  responses: submitted,
});

const ADD_DOCUMENTS = createRoute({
  method: "post",
  path: "/pipelines/documents",
  security: needs("pipelines:write"),
  summary: "Add (or replace) one document",
  request: body(DocumentInput),
  responses: submitted,
});

const INGEST = createRoute({
  method: "post",
  path: "/pipelines/ingest",
  security: needs("pipelines:write"),
  summary: "Stage 2: move the staged documents into the index",
  request: { headers: IdempotencyHeaders },
  responses: { 200: submitted[200], 201: submitted[201], 409: submitted[409], 422: submitted[422] },
});

const CLEAR = createRoute({
  method: "post",
  path: "/pipelines/clear",
  security: needs("pipelines:write"),
  summary: "Remove every document, chunk and staged document",
  responses: { 200: json(z.object({ cleared_chunks: z.number().int() }), "What was removed") },
});

const STATUS = createRoute({
  method: "get",
  path: "/pipelines/status",
  security: needs("pipelines:read"),
  summary: "Pipeline status",
  responses: { 200: json(Status, "Counts and the last pipeline task") },
});

const SEARCH = createRoute({
  method: "get",
  path: "/pipelines/search",
  security: needs("pipelines:read"),
  summary: "The chunks that best match a query (BM25, prefix and fuzzy matching)",
  request: { query: SearchQuery },
  responses: {
    200: json(z.object({ query: z.string(), k: z.number().int(), hits: z.array(Hit) }), "Best first"),
    422: problemResponse(
      `Missing or invalid q (at most 1000 characters and ${MAX_QUERY_TERMS} distinct terms) or k`,
    ),
  },
});

/**
 * The pipeline API as a sub-app: `POST /pipelines/{run,prepare,ingest,full,documents}` submit
 * background tasks (201 `{task_id}`; 200 for a retry with the same `Idempotency-Key`),
 * `POST /pipelines/clear` (200 `{cleared_chunks}`), `GET /pipelines/status` and
 * `GET /pipelines/search?q=&k=`. Errors are thrown, and become problems at the app's root.
 */
export function pipelineRoutes<E extends Env>(
  deps: PipelineRouteDeps,
  defaultHook: Hook<unknown, E, string, unknown>,
): OpenAPIHono<E> {
  const app = new OpenAPIHono<E>({ defaultHook });
  const { scopeOf } = deps;
  const ttlMs = deps.idempotencyTtlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;
  /** Queues a task of `kind` (once per Idempotency-Key); `check` runs first, inside the key's claim. */
  const submit = (c: Context, kind: string, input: unknown, check?: () => Promise<unknown>) => {
    const { store, runner } = scopeOf(c);
    const createOnce = idempotent({ keys: store.idempotency, tasks: store.tasks, ttlMs });
    return createOnce(c.req.header("idempotency-key"), `POST ${c.req.path}`, input, async () => {
      await check?.();
      return await runner.submit({ kind, input, metadata: { message: `pipeline ${kind}` } });
    });
  };
  /** Checks the path before queueing, so an escape is a 422 now (a PipelineInputError) rather than a failed task later. */
  const fromSource = (c: Context, kind: string, input: z.output<typeof PrepareInput>) => {
    const source = deps.source;
    if (!source) throw new Conflict("No source folder is configured: set PIPELINE_SOURCE_DIR and restart the server");
    return submit(c, kind, input, () => source.resolve(input.path));
  };
  const answer = <C extends Context>(c: C, created: Awaited<ReturnType<typeof submit>>) => {
    const body = { task_id: created.record.task_id };
    return created.replayed ? c.json(body, 200, createdHeaders(created)) : c.json(body, 201, createdHeaders(created));
  };

  app.openapi(
    RUN,
    async (c) => answer(c, await submit(c, PIPELINE_KINDS.run, c.req.valid("json"))),
  );
  app.openapi(
    ADD_DOCUMENTS,
    async (c) => answer(c, await submit(c, PIPELINE_KINDS.document, c.req.valid("json"))),
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
        security: needs("pipelines:write"),
        summary,
        request: body(PrepareInput, false),
        responses: { ...submitted, 409: problemResponse("No source folder is configured") },
      }),
      async (c) => answer(c, await fromSource(c, kind, PrepareInput.parse(c.req.valid("json") ?? {}))),
    );
  }
  app.openapi(
    INGEST,
    async (c) => answer(c, await submit(c, PIPELINE_KINDS.ingest, {})),
  );
  app.openapi(
    CLEAR,
    async (c) => c.json({ cleared_chunks: await scopeOf(c).store.documents.clear() }, 200),
  );
  app.openapi(
    STATUS,
    async (c) =>
      c.json({ ...await scopeOf(c).store.documents.status(), source_folder: deps.source !== undefined }, 200),
  );
  app.openapi(
    SEARCH,
    async (c) => {
      const { q, k = 5 } = c.req.valid("query");
      return c.json({ query: q, k, hits: await scopeOf(c).search.search(q, k) }, 200);
    },
  );
  return app;
}
