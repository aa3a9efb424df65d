/**
 * Text the service stores must be well-formed Unicode. A lone UTF-16 surrogate (`"s\ud800"` in
 * JSON) is kept as it is by the memory store but becomes U+FFFD on its way to Redis (UTF-8 has
 * no encoding for it), so lookups would differ by backend and distinct ids would collide there.
 * A percent-encoded surrogate in a URL (`%ED%A0%80`), like any byte run that is not UTF-8, is
 * decoded differently by different parsers (kept raw by the router, U+FFFD by `URLSearchParams`).
 * Both are refused with a 422 naming the field, before any route runs.
 *
 * @module
 */
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";
import { type FieldError, InvalidInput } from "./errors.ts";

/** Where a parsed JSON value holds a lone surrogate: the field's path, whether it is in a key, the code unit. */
export interface LoneSurrogate {
  /** The path of the string (`input.tokens.1`), or of the object whose key holds it; `(body)` for the top. */
  readonly field: string;
  readonly key?: true;
  /** The code unit as a JSON escape, e.g. `\ud800`. */
  readonly unit: string;
}

/** The first string or object key in `value` (parsed JSON) with a lone surrogate, depth first; none: undefined. */
export function loneSurrogateField(value: unknown, path: readonly (string | number)[] = []): LoneSurrogate | undefined {
  const field = path.length === 0 ? "(body)" : path.join(".");
  if (typeof value === "string") {
    const unit = loneUnit(value);
    return unit === undefined ? undefined : { field, unit };
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = loneSurrogateField(value[i], [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== "object") return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const unit = loneUnit(key);
    if (unit !== undefined) return { field, key: true, unit };
    const found = loneSurrogateField(inner, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/** The first lone surrogate of `text` as a JSON escape (`\ud800`), or undefined when `text` is well-formed. */
function loneUnit(text: string): string | undefined {
  if (text.isWellFormed()) return undefined;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xd800 || code > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++;
      continue;
    }
    return `\\u${code.toString(16)}`;
  }
  return undefined;
}

/** JSON text that may hold a surrogate: only an escape can (decoded UTF-8 never has a lone one). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** The 422 for JSON `text` (already known to parse) with a lone surrogate; undefined when it has none. */
export function loneSurrogateInJson(text: string): InvalidInput | undefined {
  if (!SURROGATE_ESCAPE.test(text)) return undefined;
  const found = loneSurrogateField(JSON.parse(text));
  if (!found) return undefined;
  const where = found.key ? `a key of ${found.field === "(body)" ? "the body" : found.field}` : found.field;
  return refused(
    found.field,
    `${where} holds a lone UTF-16 surrogate (${found.unit}), which no UTF-8 text can hold; send well-formed ` +
      "Unicode (a surrogate pair stands for one character, half of one for none)",
  );
}

const refused = (field: string, message: string): InvalidInput => {
  const error: FieldError = { field, message };
  return new InvalidInput(`1 invalid field: ${field}`, [error]);
};

/** The 422 of percent-escapes `run` in the parameter `field`. */
const notUtf8 = (field: string, kind: string, run: string): InvalidInput =>
  refused(
    field,
    `The ${kind} ${field} holds percent-escapes ${run} that are not UTF-8 (an encoded UTF-16 surrogate, or a cut ` +
      "or invalid byte sequence); encode the text as UTF-8 (encodeURIComponent does)",
  );

/** `text` percent-decoded, or as it is when it does not decode. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll("+", " "));
  } catch {
    return text;
  }
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });
/** Runs of percent-escapes: each run's bytes must be UTF-8. */
const ESCAPES = /(?:%[0-9a-fA-F]{2})+/g;

/** The first run of percent-escapes in `component` whose bytes are not UTF-8, or undefined. */
function badEscapes(component: string): string | undefined {
  for (const [run] of component.matchAll(ESCAPES)) {
    // ASCII escapes (%20, %2F) are UTF-8 by themselves.
    if (!/%[89a-fA-F]/.test(run)) continue;
    const bytes = Uint8Array.from(run.slice(1).split("%"), (hex) => parseInt(hex, 16));
    try {
      STRICT_UTF8.decode(bytes);
    } catch {
      return run;
    }
  }
  return undefined;
}

/**
 * Throws a 422 for a URL whose path segments or query parameters hold percent-escapes that are
 * not UTF-8 (an encoded surrogate, `%FF`, a cut sequence), naming the route's parameter
 * (`task_id`), the query parameter, or `(path)`. URLs without `%` pass at once.
 */
export function checkUrl(c: Context): void {
  const url = c.req.url;
  if (!url.includes("%")) return;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const queryAt = url.indexOf("?", start);
  const path = queryAt === -1 ? url.slice(start) : url.slice(start, queryAt);
  const segments = path.split("/");
  const bad = segments.findIndex((s) => badEscapes(s) !== undefined);
  if (bad !== -1) {
    const route = matchedRoutes(c).find((r) => r.method !== "ALL")?.path.split("/");
    const name = route?.length === segments.length && route[bad].startsWith(":") ? route[bad].slice(1) : "(path)";
    throw notUtf8(name, "path parameter", badEscapes(segments[bad])!);
  }
  if (queryAt !== -1) {
    for (const pair of url.slice(queryAt + 1).split("#")[0].split("&")) {
      const run = badEscapes(pair);
      if (run === undefined) continue;
      const rawName = pair.split("=")[0];
      throw notUtf8(badEscapes(rawName) === undefined ? decoded(rawName) : "(query)", "query parameter", run);
    }
  }
}
