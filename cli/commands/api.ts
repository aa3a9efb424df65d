import { Argument, Command, type CommandUnknownOpts, Option } from "@commander-js/extra-typings";
import { StoreCtlError } from "../../lib/errors/mod.ts";
import { type HttpResponse, readText, toCurl } from "../../lib/http/mod.ts";
import { applyQuery, checkQuery, render } from "../../lib/output/mod.ts";
import type { CliContext } from "../context.ts";
import { requireJson } from "../json_input.ts";
import { connect, type GlobalOptions, outputTarget } from "../session.ts";

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
const BINARY_TYPES = /^application\/(x-gzip|gzip|octet-stream|x-tar|zip)\b/i;

/** `ctl api cloud|enterprise <method> <path>`: a raw request with the profile's authentication. */
export function apiCommand(ctx: CliContext): CommandUnknownOpts {
  return new Command("api")
    .summary("send a raw request to the cloud or enterprise API")
    .description("Send a raw request to the cloud or enterprise API, authenticated from the profile or environment.")
    .addArgument(new Argument("<deployment>", "which API").choices(["cloud", "enterprise"] as const))
    .addArgument(new Argument("<method>", "HTTP method").choices(METHODS))
    .argument("<path>", "endpoint path, e.g. /subscriptions or /v1/bdbs")
    .option("-d, --data <json>", "request body: inline JSON, @file, or @- for standard input")
    .option("--query-params <params>", "URL query parameters, e.g. 'limit=10&offset=20'")
    .addOption(new Option("-H, --header <header...>", "extra header 'Name: value' (repeatable)"))
    .option("--curl", "print the equivalent curl command (secrets redacted) and send nothing")
    .addHelpText(
      "after",
      `
Cloud paths are relative to the cloud base (which ends in /v1); enterprise paths include /v1
(added when missing). JSON responses go through -o/-q/--raw; binary ones (tar.gz) are streamed
to --file <path> or to a pipe, never printed to a terminal.

Examples:
  ctl api enterprise get /v1/bdbs -q '[].name'
  ctl api cloud post /subscriptions/123/databases -d '{"name":"cache","memoryLimitInGb":1}'
  ctl api enterprise get /v1/debuginfo/all --file debuginfo.tar.gz
  ctl api cloud get /subscriptions --query-params 'limit=10&offset=20' -o yaml`,
    )
    .action(async (deployment, method, rawPath, options, command) => {
      const globals = command.optsWithGlobals() as unknown as GlobalOptions;
      if (globals.query) checkQuery(globals.query); // a bad expression fails before any request
      const body = options.data === undefined ? undefined : await readBody(ctx, options.data);
      const path = normalizePath(deployment, rawPath);
      const headers = {
        ...(body !== undefined && { "content-type": "application/json" }),
        ...parseHeaders(options.header ?? []),
      };
      const connection = await connect(ctx, globals, deployment);
      const request = { method: method.toUpperCase(), path, query: options.queryParams, headers, body };
      if (options.curl) {
        const tls = connection.credentials.deployment === "enterprise"
          ? { insecure: connection.credentials.insecure, caCert: connection.caCertFile }
          : {};
        const all = { accept: "application/json", ...connection.authHeaders, ...headers };
        ctx.stdout.write(`${toCurl(request.method, connection.client.url(request), all, body, tls)}\n`);
        return;
      }
      const response = await connection.client.send(request);
      await writeResponse(ctx, globals, response);
    });
}

/** Cloud paths are used as given; enterprise paths get `/v1` when they lack it. */
export function normalizePath(deployment: "cloud" | "enterprise", path: string): string {
  const withSlash = path.startsWith("/") ? path : `/${path}`;
  if (deployment === "cloud") return withSlash;
  return /^\/v\d+(\/|$)/.test(withSlash) ? withSlash : `/v1${withSlash}`;
}

async function readBody(ctx: CliContext, data: string): Promise<string> {
  let text = data;
  let from = "--data";
  if (data === "@-") {
    text = await ctx.readStdin();
    from = "standard input";
  } else if (data.startsWith("@")) {
    from = data.slice(1);
    try {
      text = await ctx.readTextFile(from);
    } catch (error) {
      throw new StoreCtlError("usage", `Cannot read ${from} for --data: ${(error as Error).message}`);
    }
  }
  requireJson(text, from);
  return text;
}

function parseHeaders(values: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(":");
    if (colon <= 0) throw new StoreCtlError("usage", `Invalid header '${value}'; write it as 'Name: value'`);
    headers[value.slice(0, colon).trim().toLowerCase()] = value.slice(colon + 1).trim();
  }
  return headers;
}

async function writeResponse(ctx: CliContext, options: GlobalOptions, response: HttpResponse) {
  const target = outputTarget(options);
  const type = response.headers.get("content-type") ?? "";
  const binary = BINARY_TYPES.test(type) || /attachment/i.test(response.headers.get("content-disposition") ?? "");
  if (target.file) {
    const bytes = await ctx.writeStreamAtomic(target.file, response.body ?? new ReadableStream());
    ctx.stderr.write(`Saved ${bytes} bytes to ${target.file}\n`);
    return;
  }
  if (binary) {
    if (ctx.stdout.isTTY) {
      await response.body?.cancel();
      throw new StoreCtlError(
        "usage",
        `The response is binary (${type || "attachment"}); it is not printed to a terminal`,
        {
          tips: ["Save it with --file <path> (or -o <path>), or pipe the output"],
        },
      );
    }
    await ctx.stdout.writeStream(response.body ?? new ReadableStream());
    return;
  }
  const text = await readText(response);
  if (text === "") return;
  if (!/json/i.test(type)) {
    ctx.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    return;
  }
  const data = options.query ? applyQuery(JSON.parse(text), options.query) : JSON.parse(text);
  ctx.stdout.write(await render(data, { format: target.format, raw: options.raw, isTTY: ctx.stdout.isTTY }));
}
