/**
 * Waiting for a remote operation (a cloud task, an enterprise action): the flags that bound it
 * and a spinner that shows its state on a terminal.
 *
 * @module
 */
import type { StoreCtlError } from "../../lib/errors/mod.ts";
import type { CliContext } from "../context.ts";
import { flag } from "./params.ts";
import { statusLine } from "./status_line.ts";

/** How long to wait, and how often to ask. */
export const WAIT_LIMIT_FLAGS = {
  waitTimeout: flag.number("give up waiting after this many seconds", {
    min: 1,
    max: 86_400,
    integer: true,
    default: 600,
    placeholder: "seconds",
  }),
  waitInterval: flag.number(
    "shortest pause between polls, in seconds; later ones grow to a quarter of the time waited, up to 5 s",
    { min: 0.1, max: 60, default: 1, placeholder: "seconds" },
  ),
};

/** The flags of a command that can wait for the operation it starts. */
export const WAIT_FLAGS = {
  wait: flag.boolean("wait until the operation has finished, then print its result"),
  ...WAIT_LIMIT_FLAGS,
};

/** The waiting flags' values as `waitTimeout`/`waitInterval` take them, in milliseconds. */
export function waitLimits(flags: { waitTimeout: number; waitInterval: number }) {
  return { timeoutMs: flags.waitTimeout * 1000, intervalMs: flags.waitInterval * 1000 };
}

/** What a spinner says while polls fail: a new operation not visible yet, or the failure and that polling goes on. */
export function pollTrouble(error: StoreCtlError): string {
  return error.code === "not_found" ? "not visible yet" : `poll failed (${error.status ?? error.code}), retrying`;
}

const FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";

/** A spinner on stderr: `⠋ <label>: <state> (12 s)`. */
export interface Spinner {
  /** Shows a new state at once. */
  state(text: string): void;
  /** Erases the line. */
  stop(): void;
}

/**
 * Starts a spinner on a terminal's stderr, redrawn ten times a second and whenever the state
 * changes; nothing at all when stderr is not a terminal. Each new state is also told to
 * `ctx.progress`, terminal or not.
 */
export function spinner(ctx: Pick<CliContext, "stderr" | "now" | "progress">, label: string): Spinner {
  let told: string | undefined;
  const tell = (text: string) => {
    if (text !== told) ctx.progress?.(`${label}: ${told = text}`);
  };
  if (!ctx.stderr.isTTY) return { state: tell, stop() {} };
  const line = statusLine(ctx.stderr);
  const started = ctx.now();
  let state = "waiting";
  let frame = 0;
  const draw = () =>
    line.show(`${FRAMES[frame++ % FRAMES.length]} ${label}: ${state} (${Math.round((ctx.now() - started) / 1000)} s)`);
  const timer = setInterval(draw, 100);
  return {
    state(text) {
      if (text === state) return;
      state = text;
      tell(text);
      draw();
    },
    stop() {
      clearInterval(timer);
      line.clear();
    },
  };
}
