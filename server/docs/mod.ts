/**
 * `GET /docs`: Swagger UI over `/openapi.json`, its assets served by the service itself (from
 * `swagger-ui-dist`) so that the page works offline.
 *
 * @example
 * ```ts
 * import { type Context, Hono } from "hono";
 * import { docsRoutes } from "./mod.ts";
 * const app = new Hono().route("/", docsRoutes("/openapi.json"));
 * const html = await (await app.request("/docs")).text(); // links /docs/swagger-ui-dist@…/swagger-ui.css
 * ```
 *
 * @module
 */
import { type Context, Hono } from "hono";
import { swaggerUI } from "@hono/swagger-ui";
import { serveAsset } from "../static_asset.ts";
import { pagePolicy, scriptHash } from "../security_headers.ts";

/** Where the assets are served: `/docs/swagger-ui-dist@<version>/<file>`. */
export const DOCS_BASE = "/docs";

// About 2 MB: loaded on the first /docs request, not at start.
let loaded: Promise<typeof import("./assets.ts")> | undefined;
const load = () => loaded ??= import("./assets.ts");

/** The page and its assets; `specUrl` is the OpenAPI document the page shows. */
export function docsRoutes(specUrl: string): Hono {
  const app = new Hono();
  // The page, made on the first request: Swagger UI's, with a policy that allows its one inline script by hash.
  let page: Promise<{ html: string; csp: string }> | undefined;
  const makePage = async (c: Context) => {
    const { version } = await load();
    // validatorUrl "none": Swagger UI would otherwise load a badge from validator.swagger.io.
    const options = { url: specUrl, baseUrl: DOCS_BASE, version, validatorUrl: "none", title: "storectl service" };
    const html = await (await swaggerUI(options)(c, async () => {}) as Response).text();
    const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    return { html, csp: pagePolicy(await Promise.all(inline.map(scriptHash))) };
  };
  app.get(DOCS_BASE, async (c) => {
    const { html, csp } = await (page ??= makePage(c));
    return c.html(html, 200, { "content-security-policy": csp });
  });
  app.get(`${DOCS_BASE}/:dir/:file`, async (c, next) => {
    const { version, assets } = await load();
    // The version is in the URL: a new one is a new URL, so this one never changes.
    return serveAsset(
      c,
      next,
      assets,
      c.req.param("dir") === `swagger-ui-dist@${version}` ? c.req.param("file") : undefined,
    );
  });
  return app;
}
