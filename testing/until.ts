import { sleep } from "../lib/time/mod.ts";

/**
 * Waits until `check` holds, asking every `everyMs` (20 ms); fails naming `what` after
 * `timeoutMs` (a function `what` is asked then, so the message can tell the last state seen). Tests wait on conditions
 * with it, never on fixed sleeps.
 *
 * @example
 * ```ts ignore
 * await until("the server answers 200", async () => (await fetch(url)).ok);
 * ```
 */
export async function until(
  what: string | (() => string),
  check: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
  everyMs = 20,
) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`${typeof what === "string" ? what : what()}: not within ${timeoutMs} ms`);
    }
    await sleep(everyMs);
  }
}
