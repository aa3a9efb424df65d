/**
 * Derives the response shapes the emulator's cloud side is held to
 * (`emulator/conformance/cloud_schemas.json`) from the official Cloud API OpenAPI
 * description: for each operation `ctl` uses, the documented success statuses and a shape that
 * merges the response schema (types, enums) with its example (the fields a real object has).
 * Where captured bodies of the real API disagree with the description, `OVERRIDES` below says
 * so and why; those win.
 *
 *     deno run -A tools/derive_cloud_schemas.ts <cloud_openapi.json> [commit]
 *
 * The description is vendored in redis-developer/redis-cloud-rs (tests/fixtures/cloud_openapi.json).
 *
 * @module
 */
import type { Shape } from "../emulator/conformance/shape.ts";

/** The operations `ctl`'s cloud commands use, as `METHOD path` of the description. */
const OPERATIONS = [
  "GET /",
  "GET /payment-methods",
  "GET /regions",
  "GET /acl/users",
  "GET /acl/roles",
  "GET /acl/redisRules",
  "GET /subscriptions",
  "POST /subscriptions",
  "GET /subscriptions/{subscriptionId}",
  "PUT /subscriptions/{subscriptionId}",
  "DELETE /subscriptions/{subscriptionId}",
  "GET /subscriptions/{subscriptionId}/databases",
  "POST /subscriptions/{subscriptionId}/databases",
  "GET /subscriptions/{subscriptionId}/databases/{databaseId}",
  "PUT /subscriptions/{subscriptionId}/databases/{databaseId}",
  "DELETE /subscriptions/{subscriptionId}/databases/{databaseId}",
  "GET /tasks",
  "GET /tasks/{taskId}",
  "GET /subscriptions/{subscriptionId}/peerings",
  "GET /subscriptions/{subscriptionId}/private-service-connect",
  "GET /subscriptions/{subscriptionId}/transitGateways",
];

type Json = Record<string, unknown>;

/** Lists of values that several shapes name. */
const enums: Record<string, string[]> = {};

/** Where the real API and its description disagree, from captured bodies; each says why. */
const OVERRIDES: {
  operation: string;
  why: string;
  apply(operation: { status: number[]; body: Shape }, name: string): void;
}[] = [
  {
    operation: "GET /tasks",
    why: "The task list is a bare array of tasks (redis-developer/redis-cloud-rs get_all_tasks returns " +
      "Vec<TaskStateUpdate>, its mock corrected in commit d4fcc89); the description says {tasks: [...]}.",
    apply(op) {
      const tasks = (op.body as { properties: Record<string, Shape> }).properties.tasks;
      op.body = tasks;
    },
  },
  {
    operation: "*",
    why: "Every asynchronous operation answers 202 Accepted with its task (the official clients' " +
      "captures); the description lists 200 for PUT and DELETE and for the transit gateway read.",
    apply(op, name) {
      if (isTaskShape(op.body) && name !== "GET /tasks/{taskId}" && !op.status.includes(202)) op.status.push(202);
    },
  },
  {
    operation: "*",
    why: "A failed task's response.error is an object {type, status, description} in captured bodies " +
      "(RedisLabs/rediscloud-go-api task_test.go, psc_test.go); the description types it as a string " +
      "whose enum names the type.",
    apply(op) {
      const response = taskResponse(op.body);
      if (!response) return;
      const error = response.properties.error as { enum?: string[] };
      enums.taskErrorTypes ??= error.enum ?? [];
      response.properties.error = {
        type: "object",
        properties: {
          type: { type: "string", enum: "taskErrorTypes" },
          status: { type: "string" },
          description: { type: "string" },
        },
        required: ["type", "status", "description"],
      };
    },
  },
  {
    operation: "GET /subscriptions/{subscriptionId}/databases/{databaseId}",
    why: "A database is sized by datasetSizeInGb or by the deprecated memoryLimitInGb " +
      "(DatabaseCreateRequest: 'You cannot set both'); replica appears only on a replica database.",
    apply(op) {
      allowSizes(op.body);
    },
  },
  {
    operation: "GET /subscriptions/{subscriptionId}/databases",
    why: "As for one database: datasetSizeInGb or memoryLimitInGb; replica only on replicas.",
    apply(op) {
      const subscription = (op.body as { properties: Record<string, Shape> }).properties.subscription;
      const databases = (subscription as { items: { properties: Record<string, Shape> } }).items.properties.databases;
      allowSizes((databases as { items: Shape }).items);
    },
  },
];

function allowSizes(database: Shape) {
  if (database.type !== "object") return;
  database.properties.memoryLimitInGb = { type: "number" };
  database.required = database.required.filter((key) => !["datasetSizeInGb", "replica"].includes(key));
}

function isTaskShape(shape: Shape): boolean {
  return shape.type === "object" && "taskId" in shape.properties && "commandType" in shape.properties;
}

function taskResponse(shape: Shape): { properties: Record<string, Shape> } | undefined {
  const task = shape.type === "array" ? shape.items : shape;
  if (!isTaskShape(task)) return undefined;
  const response = (task as { properties: Record<string, Shape> }).properties.response;
  return response?.type === "object" ? response : undefined;
}

/** A JSON value's shape, every field present required. */
function fromExample(value: unknown): Shape {
  if (value === null) return { type: "null" };
  if (Array.isArray(value)) return { type: "array", items: value.length ? fromExample(value[0]) : { type: "any" } };
  if (typeof value === "object") {
    const properties = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, fromExample(v)]));
    return { type: "object", properties, required: Object.keys(properties) };
  }
  // An example's 2 may as well be 2.5: only a schema says "integer".
  if (typeof value === "number") return { type: "number" };
  return { type: typeof value as "string" | "boolean" };
}

/** The shape a schema declares (references resolved); its example, when it has one, adds fields. */
function fromSchema(schema: Json, components: Json, depth = 0): Shape {
  if (typeof schema.$ref === "string") {
    return fromSchema(components[schema.$ref.split("/").pop()!] as Json, components, depth + 1);
  }
  const declared = declaredShape(schema, components, depth);
  return schema.example === undefined ? declared : merge(declared, fromExample(schema.example));
}

function declaredShape(schema: Json, components: Json, depth: number): Shape {
  if (depth > 8) return { type: "any" };
  switch (schema.type) {
    case "array":
      return {
        type: "array",
        items: schema.items ? fromSchema(schema.items as Json, components, depth + 1) : { type: "any" },
      };
    case "object": {
      const properties = Object.fromEntries(
        Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([k, v]) => [
          k,
          fromSchema(v, components, depth + 1),
        ]),
      );
      // A free-form object (`resource`, additionalProperties): any fields.
      const open = schema.properties === undefined;
      return { type: "object", properties, required: [], ...(open && { open }) };
    }
    case "string":
      return { type: "string", ...(Array.isArray(schema.enum) && { enum: schema.enum as string[] }) };
    case "integer":
    case "number":
    case "boolean":
      return { type: schema.type };
    default:
      return { type: "any" };
  }
}

/**
 * The declared shape and the example's, together: the example's fields are required (a real
 * object has them) and its types win where the two disagree (the generated schemas type `links`
 * entries' values as objects, the examples as strings); the schema adds enums and optional fields.
 */
function merge(declared: Shape, example: Shape): Shape {
  if (declared.type === "any") return example;
  if (example.type === "any") return declared;
  if (declared.type === "object" && example.type === "object") {
    const properties: Record<string, Shape> = { ...declared.properties };
    for (const [key, shape] of Object.entries(example.properties)) {
      properties[key] = key in properties ? merge(properties[key], shape) : shape;
    }
    return { type: "object", properties, required: example.required };
  }
  if (declared.type === "array" && example.type === "array") {
    return { type: "array", items: merge(declared.items, example.items) };
  }
  if (declared.type === "string" && example.type === "string") return declared;
  if ((declared.type === "number" || declared.type === "integer") && example.type === "number") return declared;
  return example;
}

if (import.meta.main) {
  const [file, commit = "unknown"] = Deno.args;
  if (!file) {
    console.error("usage: deno run -A tools/derive_cloud_schemas.ts <cloud_openapi.json> [commit]");
    Deno.exit(2);
  }
  const description = JSON.parse(await Deno.readTextFile(file));
  const components = description.components.schemas;
  const operations: Record<string, { status: number[]; body: Shape }> = {};
  for (const operation of OPERATIONS) {
    const [method, path] = operation.split(" ");
    const op = description.paths[path]?.[method.toLowerCase()];
    if (!op) throw new Error(`${operation} is not in the description`);
    const success = Object.entries(op.responses as Record<string, Json>).filter(([code]) => code.startsWith("2"));
    const content = success.map(([, r]) => Object.values((r.content ?? {}) as Record<string, Json>)[0]).find(Boolean);
    operations[operation] = {
      status: success.map(([code]) => Number(code)),
      body: content ? fromSchema(content.schema as Json, components) : { type: "any" },
    };
  }
  const applied: string[] = [];
  for (const override of OVERRIDES) {
    for (const [name, operation] of Object.entries(operations)) {
      if (override.operation === "*" || override.operation === name) override.apply(operation, name);
    }
    applied.push(`${override.operation}: ${override.why}`);
  }
  const out = {
    source: `Derived by tools/derive_cloud_schemas.ts from the official Cloud API OpenAPI description ` +
      `(${description.info?.title}, ${description.info?.version}), as vendored in redis-developer/redis-cloud-rs ` +
      `tests/fixtures/cloud_openapi.json at commit ${commit}.`,
    overrides: applied,
    enums,
    operations,
  };
  const target = new URL("../emulator/conformance/cloud_schemas.json", import.meta.url);
  await Deno.mkdir(new URL(".", target), { recursive: true });
  await Deno.writeTextFile(target, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`wrote ${target.pathname}: ${Object.keys(operations).length} operations`);
}
