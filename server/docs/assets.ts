/**
 * Swagger UI's files, embedded as text: loaded by `import()` on the first `/docs` request only
 * (about 2 MB), and inlined by `deno bundle` into a chunk of its own for Node.
 *
 * @module
 */
import css from "swagger-ui-dist/swagger-ui.css" with { type: "text" };
import js from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "text" };
import pkg from "swagger-ui-dist/package.json" with { type: "json" };

/** The `swagger-ui-dist` version, part of the assets' URLs so that they can be cached for good. */
export const version: string = pkg.version;

/** File name → content type and text. */
export const assets: Readonly<Record<string, { readonly type: string; readonly text: string }>> = {
  "swagger-ui.css": { type: "text/css; charset=utf-8", text: css },
  "swagger-ui-bundle.js": { type: "text/javascript; charset=utf-8", text: js },
};
