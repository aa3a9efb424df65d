/**
 * OpenAPI response declarations shared by the route modules: an RFC 9457 problem and a JSON body.
 *
 * @module
 */
import { z } from "@hono/zod-openapi";

/** An RFC 9457 problem as `problem()` (server/errors.ts) writes it. */
export const Problem = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  instance: z.string().optional(),
  traceId: z.string(),
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
}).openapi("Problem");

/** A response that is a problem. */
export const problemResponse = (description: string) => ({
  content: { "application/problem+json": { schema: Problem } },
  description,
});

/** A response whose JSON body follows `schema`. */
export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description,
});

/** The problems of a route that reads a JSON body: not JSON (400), too large (413), not of a JSON type (415). */
export const jsonBodyProblems = {
  400: problemResponse("The body is not valid JSON"),
  413: problemResponse("The body is over BODY_LIMIT_BYTES"),
  415: problemResponse(
    "The body is of a type other than JSON (multipart, or text that does not parse); a JSON body sent " +
      "without a type, as text/plain or as a form (curl -d) is read as JSON",
  ),
};
