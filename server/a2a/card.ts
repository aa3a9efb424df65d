/**
 * The agent card (`GET /.well-known/agent-card.json`, A2A 1.0): the two bindings, the bearer
 * tokens when the service has them, one skill per task kind, and this service's extensions.
 *
 * @module
 */
import type { TaskDefinition } from "../../lib/tasks/mod.ts";
import { VERSION } from "../../lib/version/mod.ts";
import { inputSchemaOf } from "../task_kinds_openapi.ts";
import { A2A_VERSION } from "./errors.ts";
import type { Json } from "./wire.ts";

/** The JSON-RPC binding's path. */
export const JSON_RPC_PATH = "/a2a/jsonrpc";
/** The HTTP+JSON binding's base path. */
export const REST_PATH = "/a2a/rest";

/** The extensions this agent declares (their URIs name them; there is nothing to fetch). */
export const EXTENSIONS = {
  taskTree: "urn:storectl:a2a:task-tree:v1",
  cascadeCancel: "urn:storectl:a2a:cascade-cancel:v1",
  skillInput: "urn:storectl:a2a:skill-input:v1",
} as const;

const SKILLS: Readonly<Record<string, { description: string; example: string }>> = {
  answer: {
    description:
      "Answers a question from the documents the pipelines indexed, citing them (text, or data {question, k})",
    example: "How are snapshots written to disk?",
  },
  retrieve: {
    description: "Finds the passages of the indexed documents that best match a question (text, or data {question, k})",
    example: "snapshot persistence",
  },
  demo: {
    description: "Streams the words of the text back as tokens after a few progress steps; with data, " +
      "spawns sub-tasks, asks a question or fails (its schema is under the skill-input extension)",
    example: "Hello from an A2A client",
  },
};
const TEXT_SKILLS = new Set(Object.keys(SKILLS));

/** What the card says of the service. */
export interface CardFacts {
  readonly kinds: readonly TaskDefinition[];
  /** Whether the service asks for bearer tokens. */
  readonly tokens: boolean;
  readonly pushNotifications: boolean;
  readonly cascadeCancel: boolean;
  readonly defaultKind: string;
}

/** The card, with URLs under `origin` (the one the request came to). */
export function agentCard(facts: CardFacts, origin: string): Json {
  const skill = (definition: TaskDefinition) => {
    const known = SKILLS[definition.kind];
    const modes = TEXT_SKILLS.has(definition.kind) ? ["text/plain", "application/json"] : ["application/json"];
    return {
      id: definition.kind,
      name: definition.kind,
      description: (known?.description ?? `Runs a ${definition.kind} task; its input is a data part`) +
        (definition.kind === facts.defaultKind ? ". A message that names no skill runs this one" : ""),
      tags: [definition.kind.split("_")[0]],
      ...(known && { examples: [known.example] }),
      inputModes: modes,
      outputModes: ["text/plain", "application/json"],
    };
  };
  return {
    name: "storectl",
    description: "Agent tasks with sub-tasks, questions, cancellation and streamed progress, " +
      "and document pipelines with search and answers",
    supportedInterfaces: [
      { url: origin + JSON_RPC_PATH, protocolBinding: "JSONRPC", protocolVersion: A2A_VERSION },
      { url: origin + REST_PATH, protocolBinding: "HTTP+JSON", protocolVersion: A2A_VERSION },
    ],
    provider: { organization: "storectl", url: origin },
    version: VERSION,
    documentationUrl: `${origin}/docs`,
    capabilities: {
      streaming: true,
      pushNotifications: facts.pushNotifications,
      extensions: [
        {
          uri: EXTENSIONS.taskTree,
          description: "Sub-tasks are tasks of the same context: Task.metadata has parentId (and children, the " +
            "number of sub-tasks, in ListTasks); status updates with metadata.subtask tell of a sub-task's start and end",
        },
        {
          uri: EXTENSIONS.cascadeCancel,
          description: "CancelTask cancels the task's sub-tasks too; metadata.cascade (true or false) overrides " +
            "the default",
          params: { default: facts.cascadeCancel },
        },
        {
          uri: EXTENSIONS.skillInput,
          description: "Each skill's input as JSON Schema: send it as a data part, with the skill's id in " +
            "message.metadata.skill",
          params: { schemas: Object.fromEntries(facts.kinds.map((k) => [k.kind, inputSchemaOf(k)])) },
        },
      ],
    },
    ...(facts.tokens && {
      securitySchemes: {
        bearer: {
          httpAuthSecurityScheme: {
            scheme: "Bearer",
            description: "A token of the service's SERVICE_TOKENS_FILE; its tenant's tasks are the ones you see",
          },
        },
      },
      securityRequirements: [{ schemes: { bearer: { list: ["tasks:read", "tasks:write"] } } }],
    }),
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: facts.kinds.map(skill),
  };
}
