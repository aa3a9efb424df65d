import { TERMINATING_SIGNALS, type TerminatingSignal } from "./types.ts";

/**
 * Calls `handler` once, on the first terminating signal, through a runtime's way of listening
 * (`Deno.addSignalListener`, `process.on`).
 */
export function onFirstTerminatingSignal(
  listen: (name: TerminatingSignal["name"], listener: () => void) => void,
  handler: (signal: TerminatingSignal) => void,
): void {
  let called = false;
  for (const signal of TERMINATING_SIGNALS) {
    listen(signal.name, () => {
      if (!called) handler(signal);
      called = true;
    });
  }
}
