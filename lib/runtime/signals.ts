import { TERMINATING_SIGNALS, type TerminatingSignal } from "./types.ts";

/**
 * Calls `handler` once, on the first of `names` (default: every terminating signal), through a
 * runtime's way of listening (`Deno.addSignalListener`, `process.on`).
 */
export function onFirstTerminatingSignal(
  listen: (name: TerminatingSignal["name"], listener: () => void) => void,
  handler: (signal: TerminatingSignal) => void,
  names?: readonly TerminatingSignal["name"][],
): void {
  let called = false;
  for (const signal of TERMINATING_SIGNALS.filter((s) => !names || names.includes(s.name))) {
    listen(signal.name, () => {
      if (!called) handler(signal);
      called = true;
    });
  }
}
