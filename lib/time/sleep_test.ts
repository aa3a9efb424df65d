import { assertRejects } from "../../testing/assert.ts";
import { sleep } from "./sleep.ts";

Deno.test("sleep() resolves after its time; an abort ends it at once with the signal's reason", async () => {
  await sleep(1);
  const stop = new AbortController();
  const forever = sleep(Infinity, stop.signal);
  stop.abort(new Error("stopped"));
  await assertRejects(() => forever, /stopped/);
  await assertRejects(() => sleep(1, stop.signal), /stopped/);
});
