import { StoreCtlError } from "../errors/mod.ts";

/** Longer URLs are refused by most servers and proxies (8 KiB is the common limit). */
export const MAX_URL_LENGTH = 8192;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// deno-lint-ignore no-control-regex
const BAD_VALUE = /[\u0000-\u0008\u000a-\u001f\u007f]|[^\u0000-\u00ff]/;

/**
 * Rejects what no server should receive, before anything is sent: a body on GET or HEAD, a header
 * name that is not an HTTP token, a header value with control or non-Latin-1 characters, an
 * over-long URL. These are the caller's mistakes: usage errors, never retried.
 *
 * @example
 * ```ts
 * import { checkRequest } from "./request_check.ts";
 * checkRequest("GET", "https://c:9443/v1/bdbs", { accept: "application/json" }, false);
 * ```
 */
export function checkRequest(
  method: string,
  url: string,
  headers: Readonly<Record<string, string>>,
  hasBody: boolean,
): void {
  const upper = method.toUpperCase();
  if (hasBody && (upper === "GET" || upper === "HEAD")) {
    throw new StoreCtlError("usage", `A ${upper} request cannot carry a body; nothing was sent`, {
      tips: ["Send the body with post or put, or pass parameters in the query string"],
    });
  }
  if (url.length > MAX_URL_LENGTH) {
    throw new StoreCtlError(
      "usage",
      `The URL is ${url.length} characters long, over the ${MAX_URL_LENGTH} that servers accept; nothing was sent`,
      { tips: ["Pass fewer query parameters, or send them in a request body"] },
    );
  }
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) {
      throw new StoreCtlError("usage", `Invalid header name ${JSON.stringify(name)}; nothing was sent`, {
        tips: ["Header names are letters, digits and !#$%&'*+.^_`|~- only, as in 'X-Request-Id: 1'"],
      });
    }
    if (BAD_VALUE.test(value)) {
      throw new StoreCtlError(
        "usage",
        `Invalid value for header '${name}': line breaks, control or non-Latin-1 characters; nothing was sent`,
        { tips: ["Percent-encode or base64 such values"] },
      );
    }
  }
}
