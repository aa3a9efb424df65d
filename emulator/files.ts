import { type Context, Hono } from "hono";
import { hex } from "../lib/text/mod.ts";

/** The file-transfer API key the emulator accepts (header `X-FilesAPI-Key`). */
export const FILES_API_KEY = "demo-files-key";

/** The largest part the emulator takes: parts are hashed whole. */
const MAX_PART_BYTES = 64 * 1024 * 1024;

interface Upload {
  readonly path: string;
  /** The size announced by begin_upload, if any. */
  readonly size?: number;
  readonly parts: Map<number, { size: number; sha256: Uint8Array }>;
}

/** A finished file: its size and the SHA-256 over its parts' SHA-256s (`<hex>-<parts>`). */
export interface StoredFile {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

/**
 * A file-transfer service in the style of Files.com's REST API, mounted under `/files` of the
 * cloud listener (`/files/api/rest/v1/...`): `begin_upload` hands out one upload URL per part,
 * parts are `PUT` there, `action=end` assembles them. It checks the key, each part's
 * `X-Content-SHA256`, the byte count and the SHA-256 over the parts' SHA-256s, keeping only sizes
 * and hashes (never the bytes). Fail a part with a queued fault on path `/files/upload/`.
 */
export function filesRoutes(): { app: Hono; files: () => StoredFile[]; reset: () => void } {
  const app = new Hono();
  const uploads = new Map<string, Upload>();
  const stored = new Map<string, StoredFile>();
  const fail = (c: Context, status: 400 | 401 | 404 | 413 | 422, message: string) =>
    c.json({ error: message, "http-code": status }, status);

  const api = new Hono();
  api.use("*", async (c, next) => {
    const key = c.req.header("x-filesapi-key");
    if (key !== FILES_API_KEY) return fail(c, 401, key ? "Invalid API key" : "Missing X-FilesAPI-Key header");
    return await next();
  });
  api.post("/file_actions/begin_upload/*", async (c) => {
    const path = decodeURIComponent(c.req.path.replace(/^.*?\/file_actions\/begin_upload\//, ""));
    const body = await c.req.json().catch(() => ({})) as { size?: unknown; part?: unknown; ref?: unknown };
    let ref = typeof body.ref === "string" ? body.ref : undefined;
    const part = body.part === undefined ? 1 : Number(body.part);
    if (!Number.isInteger(part) || part < 1 || part > 10_000) return fail(c, 400, `Invalid part ${body.part}`);
    if (ref === undefined) {
      if (body.size !== undefined && !(Number.isSafeInteger(body.size) && (body.size as number) >= 0)) {
        return fail(c, 400, `size must be a whole number of bytes, got ${JSON.stringify(body.size)}`);
      }
      ref = `put-${crypto.randomUUID()}`;
      uploads.set(ref, { path, size: body.size as number | undefined, parts: new Map() });
    } else if (uploads.get(ref)?.path !== path) return fail(c, 404, `No upload ${ref} for ${path}`);
    const origin = new URL(c.req.url).origin;
    return c.json([{
      ref,
      part_number: part,
      upload_uri: `${origin}/files/upload/${ref}/${part}`,
      http_method: "PUT",
      headers: {},
      path,
    }]);
  });
  api.post("/files/*", async (c) => {
    const path = decodeURIComponent(c.req.path.replace(/^.*?\/api\/rest\/v1\/files\//, ""));
    const body = await c.req.json().catch(() => ({})) as {
      action?: unknown;
      ref?: unknown;
      size?: unknown;
      sha256?: unknown;
    };
    if (body.action !== "end") return fail(c, 400, `action must be "end", got ${JSON.stringify(body.action)}`);
    const upload = typeof body.ref === "string" ? uploads.get(body.ref) : undefined;
    if (!upload || upload.path !== path) return fail(c, 404, `No upload ${body.ref} for ${path}`);
    const numbers = [...upload.parts.keys()].sort((a, b) => a - b);
    if (numbers.some((n, i) => n !== i + 1)) return fail(c, 422, `Parts missing: received ${numbers.join(", ")}`);
    const size = numbers.reduce((sum, n) => sum + upload.parts.get(n)!.size, 0);
    for (const [what, expected] of [["begin_upload", upload.size], ["end", body.size]] as const) {
      if (expected !== undefined && expected !== size) {
        return fail(c, 422, `Size mismatch: ${what} said ${expected} bytes, ${size} arrived`);
      }
    }
    const all = new Uint8Array(numbers.length * 32);
    numbers.forEach((n, i) => all.set(upload.parts.get(n)!.sha256, i * 32));
    const sha256 = `${hex(new Uint8Array(await crypto.subtle.digest("SHA-256", all)))}-${numbers.length}`;
    if (body.sha256 !== undefined && body.sha256 !== sha256) {
      return fail(c, 422, `Checksum mismatch: the client sent ${body.sha256}, the parts make ${sha256}`);
    }
    uploads.delete(body.ref as string);
    const file = { path, size, sha256 };
    stored.set(path, file);
    return c.json({ ...file, type: "file" }, 201);
  });
  api.get("/folders/*", (c) => {
    const folder = decodeURIComponent(c.req.path.replace(/^.*?\/api\/rest\/v1\/folders\/?/, "")).replace(/\/$/, "");
    return c.json([...stored.values()].filter((f) => f.path.startsWith(`${folder}/`)));
  });
  app.route("/api/rest/v1", api);

  app.put("/upload/:ref/:part", async (c) => {
    const upload = uploads.get(c.req.param("ref"));
    if (!upload) return fail(c, 404, `No upload ${c.req.param("ref")}`);
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (bytes.length > MAX_PART_BYTES) return fail(c, 413, `A part may hold ${MAX_PART_BYTES} bytes at most`);
    const sha256 = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const claimed = c.req.header("x-content-sha256");
    if (claimed !== undefined && claimed !== hex(sha256)) {
      return fail(c, 400, `Part checksum mismatch: header ${claimed}, received ${hex(sha256)}`);
    }
    upload.parts.set(Number(c.req.param("part")), { size: bytes.length, sha256 });
    return c.body(null, 200, { etag: `"${hex(sha256)}"` });
  });
  return {
    app,
    files: () => [...stored.values()],
    reset: () => {
      uploads.clear();
      stored.clear();
    },
  };
}
