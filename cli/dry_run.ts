/**
 * `--dry-run`: a command runs as usual, reads included, until it would send its first request
 * that changes something (any method but GET and HEAD); that request is printed as a curl
 * command (secrets redacted, as `ctl api --curl` prints it), and the command ends there, exit 0,
 * having changed nothing.
 *
 * @module
 */
import { toCurl, type Transport } from "../lib/http/mod.ts";
import { DryRunStop } from "./context.ts";

/** `send`, but a request that changes something is written to `print` and stops the command. */
export function dryRunTransport(
  send: Transport,
  print: (line: string) => void,
  tls: { insecure?: boolean; caCert?: string } = {},
): Transport {
  return (request) => {
    if (request.method === "GET" || request.method === "HEAD") return send(request);
    const body = request.body === undefined
      ? undefined
      : typeof request.body === "string"
      ? request.body
      : request.body instanceof Uint8Array
      ? new TextDecoder().decode(request.body)
      : "<the file's bytes, streamed>";
    print(`${toCurl(request.method, request.url, request.headers, body, tls)}\n`);
    return Promise.reject(new DryRunStop());
  };
}
