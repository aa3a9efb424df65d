import type { OutgoingHttpHeaders } from "node:http";
import { directBody, type DirectSink } from "../direct_body.ts";

/** What of Node's HTTP/1.1 `ServerResponse` a direct body's head and body are written with. */
export interface NodeResponse extends DirectSink {
  readonly headersSent: boolean;
  writeHead(status: number, headers: OutgoingHttpHeaders): unknown;
  flushHeaders(): void;
}

/**
 * `answer` as `@hono/node-server` should send it: a response with a direct body (`withDirectBody`)
 * gets its head written here and its body attached to `outgoing`, and `sent` (the adapter's
 * `RESPONSE_ALREADY_SENT`) is returned in its place; any other response is returned as it is.
 */
export function writeDirectBodies(
  answer: Response | Promise<Response>,
  outgoing: NodeResponse,
  sent: Response,
): Response | Promise<Response> {
  const send = (response: Response) => {
    const attach = directBody(response);
    if (!attach || outgoing.headersSent) return response;
    outgoing.writeHead(response.status, nodeHeaders(response.headers));
    outgoing.flushHeaders(); // the client learns the stream is open before its first event
    attach(outgoing);
    return sent;
  };
  return answer instanceof Promise ? answer.then(send) : send(answer);
}

function nodeHeaders(headers: Headers): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = Object.fromEntries(headers);
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) out["set-cookie"] = cookies;
  return out;
}
