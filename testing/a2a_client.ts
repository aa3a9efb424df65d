/**
 * The official A2A client (`@a2a-js/sdk`) set up for tests: one binding, a bearer token, and
 * messages built the way the SDK's types want them.
 *
 * @module
 */
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import {
  type Message,
  Role,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
  TaskState,
} from "@a2a-js/sdk";

export { type Client, Role, type StreamResponse, type Task, TaskState };

/** The two bindings the service offers, as the agent card names them. */
export const BINDINGS = ["JSONRPC", "HTTP+JSON"] as const;
export type Binding = typeof BINDINGS[number];

/** A client of the agent at `url` (its card read from there) speaking `binding`, with `token` if given. */
export async function a2aClient(url: string, binding: Binding, token?: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    if (token) headers.set("authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
    preferredTransports: [binding],
  }));
  return await factory.createFromUrl(url);
}

/** A user message: `text`, or a `data` part, to `skill` (metadata), in a context or to a task. */
export function message(
  content: { text: string } | { data: unknown },
  to: { skill?: string; contextId?: string; taskId?: string } = {},
): Message {
  return {
    messageId: crypto.randomUUID(),
    role: Role.ROLE_USER,
    parts: [{
      content: "text" in content ? { $case: "text", value: content.text } : { $case: "data", value: content.data },
      metadata: undefined,
      filename: "",
      mediaType: "",
    }],
    contextId: to.contextId ?? "",
    taskId: to.taskId ?? "",
    metadata: to.skill ? { skill: to.skill } : undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The text of a part list. */
export function textOf(parts: readonly { content?: { $case: string; value: unknown } }[]): string {
  return parts.map((p) => p.content?.$case === "text" ? String(p.content.value) : "").join("");
}

/** Everything a stream sends until it ends. */
export async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const all: StreamResponse[] = [];
  for await (const response of stream) all.push(response);
  return all;
}

/** The output artifact's text as a client rebuilds it from appended chunks (a first task snapshot's, then each chunk). */
export function outputOf(responses: readonly StreamResponse[]): string {
  let text = "";
  for (const r of responses) {
    if (r.payload?.$case === "task") {
      text = textOf(r.payload.value.artifacts.find((a) => a.artifactId === "output")?.parts ?? []);
    } else if (r.payload?.$case === "artifactUpdate" && r.payload.value.artifact?.artifactId === "output") {
      const chunk = textOf(r.payload.value.artifact.parts);
      text = r.payload.value.append ? text + chunk : chunk;
    }
  }
  return text;
}

/** A SendMessage configuration that answers at once. */
export const returnImmediately = {
  returnImmediately: true,
  acceptedOutputModes: [],
  taskPushNotificationConfig: undefined,
};

/** A push notification config of `taskId` (empty for one given with SendMessage) to `url`. */
export function pushConfigTo(
  taskId: string,
  url: string,
  auth: { token?: string; authentication?: TaskPushNotificationConfig["authentication"] } = {},
): TaskPushNotificationConfig {
  return { tenant: "", id: "", taskId, url, token: auth.token ?? "", authentication: auth.authentication };
}
