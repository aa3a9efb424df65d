/**
 * What a server said in an error response, as one readable line: the message of a JSON error
 * body (the cloud API's `{message}`, the enterprise API's `{error_code, message}` or
 * `{error_code, description}`, `error_details.message`, problem details), the title of an HTML
 * page (a proxy's or nginx's 401), or plain text with its whitespace collapsed. Undefined when
 * the body says nothing.
 *
 * @example
 * ```ts
 * import { serverMessage } from "./error_body.ts";
 * serverMessage('{"error_code":"db_not_exist","description":"Database 9 does not exist"}'); // "Database 9 does not exist"
 * serverMessage("<html><head><title>401 Authorization Required</title></head></html>"); // "401 Authorization Required"
 * ```
 */
export function serverMessage(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  if (/^[{[]/.test(trimmed)) {
    try {
      return fromJson(JSON.parse(trimmed));
    } catch {
      // Not JSON after all: read it as text.
    }
  }
  return oneLine(/^<(!doctype|html|head|body)\b/i.test(trimmed) ? fromHtml(trimmed) : trimmed);
}

/** The longest line shown; the whole body is in the `-vv` log. */
const MAX_LENGTH = 200;

function fromJson(body: unknown): string | undefined {
  if (body === null || typeof body !== "object") return undefined;
  const b = body as Record<string, unknown>;
  const error = b.error as Record<string, unknown> | string | undefined;
  const details = b.error_details as Record<string, unknown> | undefined;
  const candidates = [
    b.message,
    b.description,
    details?.message,
    typeof error === "object" ? error?.description : undefined,
    b.detail,
    b.title,
    typeof error === "string" ? error : undefined,
    b.error_code,
  ];
  const found = candidates.find((value) => typeof value === "string" && value.trim() !== "");
  return found === undefined ? undefined : oneLine(found as string);
}

function fromHtml(html: string): string {
  const title = html.match(/<title[^>]*>([\s\S]*?)<\/title>/i)?.[1];
  if (title?.trim()) return title;
  return html.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, " ").replace(/<[^>]*>/g, " ");
}

function oneLine(text: string): string | undefined {
  const line = text.replace(/\s+/g, " ").trim();
  if (line === "") return undefined;
  return line.length > MAX_LENGTH ? `${line.slice(0, MAX_LENGTH)}…` : line;
}
