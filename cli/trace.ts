import { newTraceparent, parseTraceparent, TRACEPARENT_FORMAT } from "../lib/trace_context/mod.ts";
import type { Logger } from "../lib/output/mod.ts";

/**
 * The `traceparent` a run sends with each request: `TRACEPARENT`'s, continuing the caller's trace
 * (the OpenTelemetry convention for a process started within one), else a new trace's with
 * `--trace`, else none. The trace id is logged at `-v`; a `TRACEPARENT` that is not one is warned
 * of and not sent.
 */
export function requestTrace(
  env: Readonly<Record<string, string | undefined>>,
  flag: boolean,
  out: { readonly logger: Logger; warn(message: string): void },
): string | undefined {
  const given = env.TRACEPARENT?.trim();
  let traceparent = given && parseTraceparent(given) ? given : undefined;
  if (given && !traceparent) {
    out.warn(`TRACEPARENT '${given}' is not a W3C traceparent (${TRACEPARENT_FORMAT}); ignored`);
  }
  if (!traceparent && flag) traceparent = newTraceparent();
  if (traceparent) out.logger.log("info", "trace", `trace id ${parseTraceparent(traceparent)!.traceId}`);
  return traceparent;
}
