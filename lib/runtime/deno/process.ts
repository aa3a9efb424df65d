import { TERMINATING_SIGNALS, type TerminatingSignal } from "../types.ts";

/** Calls `handler` once, on the first terminating signal. */
export function denoOnTerminate(handler: (signal: TerminatingSignal) => void): void {
  let called = false;
  for (const signal of TERMINATING_SIGNALS) {
    Deno.addSignalListener(signal.name, () => {
      if (!called) handler(signal);
      called = true;
    });
  }
}
