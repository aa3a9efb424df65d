import process from "node:process";
import { TERMINATING_SIGNALS, type TerminatingSignal } from "../types.ts";

/** Calls `handler` once, on the first terminating signal. */
export function nodeOnTerminate(handler: (signal: TerminatingSignal) => void): void {
  let called = false;
  for (const signal of TERMINATING_SIGNALS) {
    process.on(signal.name, () => {
      if (!called) handler(signal);
      called = true;
    });
  }
}
