import { assert, assertEquals, assertRejects } from "../../testing/assert.ts";
import { capture } from "../../testing/ctl_in_process.ts";
import { type CliContext, Interrupted } from "../context.ts";
import { confirmOrStop } from "./confirm.ts";

const SIGINT = { name: "SIGINT", number: 2 } as const;

/** A context on a terminal whose prompt answers with `answer` (never, when it is undefined). */
function terminal(interrupt: AbortSignal, answer?: () => Promise<boolean>) {
  const stderr = capture(true);
  const asked: string[] = [];
  const ctx = {
    stdin: { isTTY: true },
    stderr,
    interrupt,
    confirm(question: string) {
      asked.push(question);
      return answer ? answer() : new Promise<boolean>(() => {});
    },
  } as unknown as CliContext;
  return { ctx, stderr, asked };
}

Deno.test("confirmOrStop() ends the prompt line and throws Interrupted when Ctrl+C comes while it waits", async () => {
  const interrupt = new AbortController();
  const { ctx, stderr, asked } = terminal(interrupt.signal);
  const asking = confirmOrStop(ctx, "x exists. Overwrite it?", false);
  await Promise.resolve();
  assertEquals(asked, ["x exists. Overwrite it?"]);
  interrupt.abort(new Interrupted(SIGINT));
  const error = await assertRejects(() => asking);
  assertEquals([error instanceof Interrupted, (error as Interrupted).signal], [true, SIGINT]);
  assertEquals(stderr.text(), "\n");
});

Deno.test("confirmOrStop() treats an answer that comes with the interrupt as the interrupt, not a no", async () => {
  // A terminal read ends (no line) when Ctrl+C arrives; the signal must win over "no" (exit 12).
  const interrupt = new AbortController();
  const { ctx, stderr } = terminal(interrupt.signal, () => {
    interrupt.abort(new Interrupted(SIGINT));
    return Promise.resolve(false);
  });
  assert((await assertRejects(() => confirmOrStop(ctx, "Continue?", false))) instanceof Interrupted);
  assertEquals(stderr.text(), "\n");
});

Deno.test("confirmOrStop() does not ask once interrupted, and still cancels on no and goes on with yes", async () => {
  const interrupt = new AbortController();
  interrupt.abort(new Interrupted(SIGINT));
  const gone = terminal(interrupt.signal, () => Promise.resolve(true));
  assert((await assertRejects(() => confirmOrStop(gone.ctx, "Continue?", false))) instanceof Interrupted);
  assertEquals(gone.asked, []);
  const calm = new AbortController().signal;
  const no = terminal(calm, () => Promise.resolve(false));
  await assertRejects(() => confirmOrStop(no.ctx, "Continue?", false), /^Cancelled; nothing was changed$/);
  assertEquals(no.stderr.text(), "");
  await confirmOrStop(terminal(calm, () => Promise.resolve(true)).ctx, "Continue?", false);
});
