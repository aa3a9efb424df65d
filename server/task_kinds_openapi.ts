import { toJSONSchema } from "zod";
import type { TaskDefinition } from "../lib/tasks/mod.ts";

/** A schema object of the OpenAPI document. */
type SchemaObject = Record<string, unknown>;

/** `pipeline_run` → `PipelineRun`. */
const pascal = (kind: string) =>
  kind.split(/[^A-Za-z0-9]+/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("");

/** A kind's input as JSON Schema, as a request may send it (defaulted fields optional). */
export function inputSchemaOf(definition: TaskDefinition): SchemaObject {
  const { $schema: _, ...input } = toJSONSchema(definition.input, { io: "input", unrepresentable: "any" });
  return input;
}

/**
 * Publishes each kind's input schema in the OpenAPI `document` (in place): a component
 * `<Kind>TaskInput` (the kind's zod schema as JSON Schema, as a request may send it: defaulted
 * fields optional), a component `<Kind>TaskRequest` (`kind` fixed to the kind, `input` referring to
 * it, `session_id` and `metadata` as the route declares them), and the `POST /tasks` body as
 * `oneOf` those requests with a `discriminator` on `kind`, which OpenAPI generators turn into a
 * union of typed requests. Rules JSON Schema cannot say (a blank question, an overlap of half the
 * chunk size) stay with the service's 422.
 *
 * @example
 * ```ts
 * import { demoTask } from "../lib/tasks/mod.ts";
 * const document = {
 *   paths: { "/tasks": { post: { requestBody: { content: { "application/json": { schema: { properties: {} } } } } } } },
 * };
 * describeTaskKinds(document, [demoTask]); // components.schemas.DemoTaskInput, DemoTaskRequest
 * ```
 */
export function describeTaskKinds(document: SchemaObject, definitions: readonly TaskDefinition[]): void {
  // deno-lint-ignore no-explicit-any
  const doc = document as any;
  const media = doc.paths?.["/tasks"]?.post?.requestBody?.content?.["application/json"];
  if (!media || definitions.length === 0) return;
  const route = media.schema as { properties?: Record<string, SchemaObject> };
  const schemas: Record<string, SchemaObject> = (doc.components ??= {}).schemas ??= {};
  const mapping: Record<string, string> = {};
  for (const definition of definitions) {
    const name = pascal(definition.kind);
    const input = inputSchemaOf(definition);
    schemas[`${name}TaskInput`] = input;
    const needsInput = Array.isArray(input.required) && input.required.length > 0;
    schemas[`${name}TaskRequest`] = {
      type: "object",
      description: `A \`${definition.kind}\` task`,
      properties: {
        kind: { type: "string", enum: [definition.kind] },
        input: { $ref: `#/components/schemas/${name}TaskInput` },
        ...(route.properties?.session_id && { session_id: route.properties.session_id }),
        ...(route.properties?.metadata && { metadata: route.properties.metadata }),
      },
      required: needsInput ? ["kind", "input"] : ["kind"],
    };
    mapping[definition.kind] = `#/components/schemas/${name}TaskRequest`;
  }
  media.schema = {
    description: "One request per task kind, told apart by `kind`; an unknown kind or a bad input is a 422 naming " +
      "each field (`input.steps`)",
    oneOf: Object.values(mapping).map(($ref) => ({ $ref })),
    discriminator: { propertyName: "kind", mapping },
  };
}
