/**
 * The curl command equivalent to a request, with secret headers redacted, for `--curl`.
 *
 * @example
 * ```ts
 * toCurl("GET", "https://c:9443/v1/bdbs", { authorization: "Basic …" }, undefined, { insecure: true });
 * // curl -k -X GET 'https://c:9443/v1/bdbs' -H 'authorization: Basic ***'
 * ```
 */
export function toCurl(
  method: string,
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string | undefined,
  tls: { insecure?: boolean; caCert?: string } = {},
): string {
  const parts = ["curl"];
  if (tls.insecure) parts.push("-k");
  if (tls.caCert) parts.push("--cacert", quote(tls.caCert));
  parts.push("-X", method.toUpperCase(), quote(url));
  for (const [name, value] of Object.entries(headers)) parts.push("-H", quote(`${name}: ${redact(name, value)}`));
  if (body !== undefined) parts.push("--data-binary", quote(body));
  return parts.join(" ");
}

const SECRET_HEADERS = ["authorization", "x-api-key", "x-api-secret-key", "cookie", "proxy-authorization"];

function redact(name: string, value: string): string {
  if (!SECRET_HEADERS.includes(name.toLowerCase())) return value;
  return name.toLowerCase() === "authorization" ? `${value.split(" ")[0]} ***` : "***";
}

function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
