import { StoreCtlError } from "../../lib/errors/mod.ts";
import { type ApiClient, type HttpResponse, readJson, readText, toCurl } from "../../lib/http/mod.ts";
import { formatSize } from "../../lib/output/mod.ts";
import { basename, dirname, joinPath } from "../../lib/runtime/mod.ts";
import type { Factory } from "../factory.ts";
import { arg, flag } from "../framework/params.ts";
import { withProgress } from "../framework/progress.ts";
import { writeResult } from "../framework/output.ts";
import { command, type OutputTarget } from "../framework/spec.ts";
import { readJsonBody } from "../json_input.ts";

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
const BINARY_TYPES = /^application\/(x-gzip|gzip|octet-stream|x-tar|zip)\b/i;

/** `ctl api cloud|enterprise <method> <path>`: a raw request with the profile's authentication. */
export default command({
  summary: "send a raw request to the cloud or enterprise API",
  description: `Send a raw request to the cloud or enterprise API, authenticated from the profile or environment.

Cloud paths are relative to the cloud base, which ends in /v1 (a /v1 written in front is dropped);
enterprise paths include /v1, which is added when missing. JSON responses go through -o, -q and
--raw (auto: pretty JSON). Binary ones (tar.gz) stream to --file <path> (a directory gets the
server's file name) or to a pipe, never to a terminal.`,
  args: [
    arg.choice("deployment", "which API", ["cloud", "enterprise"]),
    arg.choice("method", "HTTP method", METHODS),
    arg.string("path", "endpoint path, e.g. /subscriptions or /v1/bdbs"),
  ],
  flags: {
    data: flag.string("request body: inline JSON, @file, or @- for standard input", {
      alias: "d",
      placeholder: "json",
    }),
    queryParams: flag.string("URL query parameters, e.g. 'limit=10&offset=20'", { placeholder: "params" }),
    header: flag.list("extra header 'Name: value'; repeat the flag for more", { alias: "H", placeholder: "header" }),
    curl: flag.boolean("print the equivalent curl command (secrets redacted) and send nothing"),
  },
  output: { writesFile: true },
  examples: [
    "ctl api enterprise get /v1/bdbs -q '[].name'",
    `ctl api cloud post /subscriptions/156400/databases -d '{"name":"cache","memoryLimitInGb":1}'`,
    "ctl api enterprise get /v1/debuginfo/all --file debuginfo.tar.gz",
    "ctl api cloud get /subscriptions --query-params 'limit=10&offset=20' -o yaml",
  ],
  async run({ args: [deployment, method, rawPath], flags, output }, f) {
    const body = flags.data === undefined ? undefined : await readJsonBody(flags.data, {
      file: (path) => f.ctx.fs.readFile(f.resolvePath(path)),
      stdin: () => f.ctx.stdin.readAll(),
    });
    const headers = {
      ...(body !== undefined && { "content-type": "application/json" }),
      ...parseHeaders(flags.header ?? []),
    };
    const target = output.file === undefined ? undefined : await prepareFile(f, output.file);
    const client: ApiClient = deployment === "cloud" ? await f.cloud() : await f.enterprise();
    const request = {
      method: method.toUpperCase(),
      path: client.path(rawPath),
      query: flags.queryParams,
      headers,
      body,
      signal: f.ctx.interrupt,
    };
    if (flags.curl) {
      const creds = f.used.enterprise;
      const tls = deployment === "enterprise" && creds?.deployment === "enterprise"
        ? { insecure: creds.insecure, caCert: creds.caCert }
        : {};
      const all = { accept: "application/json", ...client.authHeaders, ...headers };
      f.ctx.stdout.write(`${toCurl(request.method, client.http.url(request), all, body, tls)}\n`);
      return;
    }
    const response = await client.http.send(request);
    return await handleResponse(
      f,
      response,
      { ...output, file: target?.path },
      target?.isDirectory ? request.path : undefined,
    );
  },
});

/** One header per `-H`, as `Name: value`. */
export function parseHeaders(values: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(":");
    if (colon <= 0) {
      throw new StoreCtlError("usage", `Invalid header '${value}'; write it as 'Name: value'`, {
        tips: ["Give one header per -H, and repeat -H for more"],
      });
    }
    headers[value.slice(0, colon).trim().toLowerCase()] = value.slice(colon + 1).trim();
  }
  return headers;
}

/**
 * Checks the target before anything is sent: a new or regular file needs a directory that takes
 * a new file (for the `.partial`); a directory gets the server's file name inside it later;
 * FIFOs and devices are written in place and need nothing.
 */
async function prepareFile(f: Factory, file: string): Promise<{ path: string; isDirectory: boolean }> {
  const path = f.resolvePath(file);
  const kind = (await f.ctx.fs.info(path))?.kind;
  const isDirectory = kind === "directory";
  if (kind === undefined || kind === "file" || isDirectory) {
    await f.ctx.fs.checkWritableDirectory(isDirectory ? path : dirname(path));
  }
  return { path, isDirectory };
}

/** The file name a response suggests: `Content-Disposition`, else the last part of the path. */
function suggestedName(response: HttpResponse, path: string, json: boolean): string {
  const disposition = response.headers.get("content-disposition") ?? "";
  const named = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition)?.[1];
  const name = basename(decodeURIComponent(named ?? "")) || basename(path) || "response";
  return json && !/\.json$/.test(name) ? `${name}.json` : name;
}

/** Writes the response: JSON through the output options, other text as it is, binary to a file or pipe. */
async function handleResponse(
  f: Factory,
  response: HttpResponse,
  output: OutputTarget,
  /** Set when the target is a directory: the request path, to name the file after. */
  namedAfter: string | undefined,
): Promise<unknown> {
  const type = response.headers.get("content-type") ?? "";
  const binary = BINARY_TYPES.test(type) || /attachment/i.test(response.headers.get("content-disposition") ?? "");
  const path = output.file === undefined
    ? undefined
    : namedAfter
    ? joinPath(output.file, suggestedName(response, namedAfter, !binary))
    : output.file;
  if (!binary) {
    const data = /json/i.test(type) ? await readJson(response, "the response") : await readText(response);
    if (typeof data === "string") {
      if (path) await f.ctx.fs.writeFileAtomic(path, data);
      else if (data !== "") f.ctx.stdout.write(data.endsWith("\n") ? data : `${data}\n`);
      return;
    }
    if (path) return await writeResult(f, data, {}, { ...output, file: path });
    return data;
  }
  if (f.globals.query) {
    await response.body?.cancel();
    throw new StoreCtlError("usage", `The response is binary (${type}); -q applies only to JSON`);
  }
  const length = Number(response.headers.get("content-length")) || undefined;
  const body = response.body ?? new ReadableStream<Uint8Array>();
  if (path) {
    const label = `Downloading ${basename(path)}`;
    const shown = withProgress(body, { label, total: length, stderr: f.ctx.stderr, now: f.ctx.now });
    const bytes = await f.ctx.fs.writeStream(path, shown);
    f.ctx.stderr.write(`Saved ${formatSize(bytes)} to ${path}\n`);
    return;
  }
  if (f.ctx.stdout.isTTY) {
    await body.cancel();
    throw new StoreCtlError(
      "usage",
      `The response is binary (${type || "an attachment"}); it is not printed to a terminal`,
      {
        tips: ["Save it with --file <path> (or -o <path>), or pipe the output"],
      },
    );
  }
  await f.ctx.stdout.writeStream(body);
  return undefined;
}
