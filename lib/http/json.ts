import { StoreCtlError } from "../errors/mod.ts";
import type { ApiRequest, HttpClient, HttpClientOptions } from "./client.ts";
import { fetchTransport, type HttpResponse, readText } from "./transport.ts";

/**
 * The body parsed as JSON; an empty body is `undefined`, and a body that is not JSON is an `api`
 * error naming the request, since the API promised JSON.
 *
 * @example
 * ```ts
 * import { readJson } from "./json.ts";
 * const data = await readJson(Response.json([1, 2]), "GET /v1/bdbs"); // [1, 2]
 * ```
 */
export async function readJson<T = unknown>(response: HttpResponse, what: string): Promise<T> {
  const text = await readText(response);
  if (text.trim() === "") return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new StoreCtlError("api", `${what} answered with something other than JSON: ${text.slice(0, 120)}`);
  }
}

/** Transport, limits and logging for an API client: everything but the base URL and credentials. */
export type ClientSettings = Omit<HttpClientOptions, "baseUrl" | "authHeaders" | "identity">;

/**
 * Settings with what a library user leaves out filled in: the global `fetch` and a 30 s timeout.
 *
 * @example
 * ```ts
 * import { clientSettings } from "./json.ts";
 * clientSettings({ timeoutMs: 5_000 }).transport; // over the global fetch
 * ```
 */
export function clientSettings(settings: Partial<ClientSettings> = {}): ClientSettings {
  return { transport: fetchTransport(fetch), timeoutMs: 30_000, ...settings };
}

/** An API's client: its HTTP client, its path rule, and JSON helpers. */
export interface ApiClient {
  readonly http: HttpClient;
  /** The headers that authenticate every request (for `--curl`). */
  readonly authHeaders: Readonly<Record<string, string>>;
  /** The API's path rule applied to a path as the user wrote it. */
  path(path: string): string;
  /** GET and parse JSON. */
  get<T>(path: string, options?: Pick<ApiRequest, "query" | "signal">): Promise<T>;
  /** Send a JSON body (or none) and parse the JSON answer. */
  send<T>(method: string, path: string, body?: unknown, options?: Pick<ApiRequest, "signal">): Promise<T>;
}

/** `get` and `send` of an `ApiClient`, over an HTTP client and a path rule. */
export function jsonMethods(http: HttpClient, path: (p: string) => string): Pick<ApiClient, "get" | "send"> {
  return {
    async get<T>(p: string, options: Pick<ApiRequest, "query" | "signal"> = {}): Promise<T> {
      const response = await http.send({ method: "GET", path: path(p), ...options });
      return await readJson<T>(response, `GET ${path(p)}`);
    },
    async send<T>(method: string, p: string, body?: unknown, options: Pick<ApiRequest, "signal"> = {}): Promise<T> {
      const response = await http.send({
        method,
        path: path(p),
        ...(body !== undefined && { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
        ...options,
      });
      return await readJson<T>(response, `${method} ${path(p)}`);
    },
  };
}
