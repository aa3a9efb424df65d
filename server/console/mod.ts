/**
 * `GET /console`: the web console, an HTML shell over one script and one stylesheet served
 * from `/console/assets/<name>.<hash>.js|css` (immutable: a new build is a new name). The files
 * are embedded as text (`assets.gen.ts`, built by `deno task console`), so the page works offline
 * on every runtime. The routes are open: the page holds no data; its API calls carry the caller's
 * token. The shell tells the page what it needs before its first call ({@link ConsoleFacts}), so
 * it asks for a token, or picks how to follow a list, without a 401 or a 404 to learn it.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { consoleRoutes } from "./mod.ts";
 * const facts = { tokens: false, streams: { session: true, global: false } };
 * const app = new Hono().route("/", consoleRoutes(facts));
 * const html = await (await app.request("/console")).text(); // <script type="module" src="/console/assets/main.….js">
 * ```
 *
 * @module
 */
import { type Context, Hono } from "hono";
import { assets, entry } from "./assets.gen.ts";
import { serveAsset } from "../static_asset.ts";
import { pagePolicy } from "../security_headers.ts";
import type { SharedChannels } from "../../lib/store/mod.ts";

/** Where the console is served. */
export const CONSOLE_BASE = "/console";

/** What the page knows of the service from the start (the shell's `storectl-service` meta, as JSON). */
export interface ConsoleFacts {
  /** Whether the API needs a token (`SERVICE_TOKENS_FILE`). */
  readonly tokens: boolean;
  /** Which shared streams are served (`CHANNEL_SCOPES`). */
  readonly streams: SharedChannels;
}

/** The HTML shell: the page's title, the service's facts, its stylesheet and script, a place for the app. */
export function consoleShell(facts: ConsoleFacts): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="storectl-service" content="${escapeAttribute(JSON.stringify(facts))}">
<title>storectl console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${CONSOLE_BASE}/assets/${entry.css}">
<script type="module" src="${CONSOLE_BASE}/assets/${entry.js}"></script>
</head>
<body>
<div id="app"><noscript>The console needs JavaScript.</noscript></div>
</body>
</html>
`;
}

const escapeAttribute = (text: string) => text.replaceAll("&", "&amp;").replaceAll('"', "&quot;");

/** The console's page and its assets. */
export function consoleRoutes(facts: ConsoleFacts): Hono {
  const app = new Hono();
  // Its own script and stylesheet, nothing inline: an injected script cannot run, nor the page be framed.
  const csp = pagePolicy();
  const shell = consoleShell(facts);
  const page = (c: Context) => c.html(shell, 200, { "cache-control": "no-cache", "content-security-policy": csp });
  app.get(CONSOLE_BASE, page);
  // The app routes inside the page by hash (#/tasks/<id>), so one path serves every view.
  app.get(`${CONSOLE_BASE}/`, page);
  app.get(`${CONSOLE_BASE}/assets/:file`, (c, next) => serveAsset(c, next, assets, c.req.param("file")));
  return app;
}
