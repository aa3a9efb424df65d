/**
 * The W3C Trace Context `traceparent` header: read one, or start a trace. No third-party
 * dependency, so that `ctl` can send one without loading OpenTelemetry.
 *
 * @example
 * ```ts
 * import { newTraceparent, parseTraceparent } from "./mod.ts";
 * parseTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
 * // { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" }
 * parseTraceparent("00-00000000000000000000000000000000-b7ad6b7169203331-01"); // undefined
 * newTraceparent(); // "00-<32 random hex>-<16 random hex>-01"
 * ```
 *
 * @module
 */
import { hex } from "../text/mod.ts";

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The header's format, for messages. */
export const TRACEPARENT_FORMAT = "00-<32 hex digits: trace id>-<16 hex digits: parent id>-<2 hex digits: flags>";

/**
 * The trace and parent span ids of a `traceparent` header, or undefined when it is not one
 * (version ff, all-zero ids, wrong lengths, upper case).
 */
export function parseTraceparent(header: string | undefined): { traceId: string; spanId: string } | undefined {
  const match = header === undefined ? null : TRACEPARENT.exec(header.trim());
  if (!match || match[1] === "ff" || /^0+$/.test(match[2]) || /^0+$/.test(match[3])) return undefined;
  return { traceId: match[2], spanId: match[3] };
}

/** A `traceparent` that starts a new, sampled trace. */
export function newTraceparent(): string {
  return `00-${randomHex(16)}-${randomHex(8)}-01`;
}

function randomHex(bytes: number): string {
  return hex(crypto.getRandomValues(new Uint8Array(bytes)));
}
