import { assertEquals } from "../../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../testing/ctl_in_process.ts";
import { tableRows } from "../../../testing/table_text.ts";

Deno.test("enterprise action list: the OBJECT column names what each action or state machine works on", async () => {
  await using ctl = await inProcessCtl({ taskDelayMs: 60_000 });
  const env = EMULATOR_ENV;
  assertEquals((await ctl(["enterprise", "node", "remove", "3", "--yes"], { env })).code, 0);
  const r = await ctl(["enterprise", "action", "list"], { env, tty: { stdout: true }, columns: 200 });
  assertEquals(r.code, 0, r.stderr);
  const rows = tableRows(r.stdout);
  assertEquals(Object.keys(rows[0]), ["ACTION UID", "NAME", "STATUS", "OBJECT", "PROGRESS"]);
  assertEquals(rows.map((row) => row.OBJECT), ["node:3", "bdb:1", "bdb:2", "bdb:3", "bdb:4"]);
});
