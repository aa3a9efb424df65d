import { assertEquals, assertMatch } from "../../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../testing/ctl_in_process.ts";
import { tableCells, tableRows } from "../../../testing/table_text.ts";
import { parseSince } from "./log.ts";

const env = EMULATOR_ENV;
const table = { env, tty: { stdout: true }, columns: 200 };

Deno.test("enterprise log list: newest first by default; --limit, --order and --since reach the API", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl(["enterprise", "log", "list", "--limit", "3"], table);
  assertEquals(r.requests, ["GET /v1/logs?order=desc&limit=3"]);
  assertEquals(tableCells(r.stdout)[0], ["TIME", "SEVERITY", "TYPE"]);
  const times = tableRows(r.stdout).map((row) => row.TIME);
  assertEquals(times, [...times].sort().reverse());
  const all = JSON.parse((await ctl(["enterprise", "log", "list", "--order", "asc"], { env })).stdout);
  assertEquals(all.length, 20);
  const since = await ctl(["enterprise", "log", "list", "--since", all[17].time, "--order", "asc"], { env });
  assertEquals(JSON.parse(since.stdout), all.slice(17));
  assertEquals(since.requests, [`GET /v1/logs?stime=${encodeURIComponent(all[17].time)}&order=asc`]);
  const day = await ctl(["enterprise", "log", "list", "--since", "2026-01-02"], { env });
  assertEquals(JSON.parse(day.stdout), []);
  const none = await ctl(["enterprise", "log", "list", "--since", "1h"], table);
  assertEquals([none.code, none.stdout, none.stderr], [0, "", "No events\n"]);
});

Deno.test("enterprise log list: a bad --since, --limit or --order is exit 2 before any request", async () => {
  await using ctl = await inProcessCtl();
  for (
    const [flag, value, message] of [
      ["--since", "yesterday", /--since must be an ISO 8601 time .* or an age such as 30m, 12h, 7d; got 'yesterday'/],
      ["--limit", "0", /--limit must be from 1 to 100000; got '0'/],
      ["--order", "newest", /--order must be one of asc, desc; got 'newest'/],
    ] as const
  ) {
    const r = await ctl(["enterprise", "log", "list", flag, value], { env });
    assertEquals([r.code, r.requests], [2, []], flag);
    assertMatch(r.stderr, message);
  }
});

Deno.test("parseSince() reads ages back from now and ISO 8601 times, in the API's form (whole seconds, Z)", () => {
  const now = Date.UTC(2026, 5, 1, 12, 0, 0, 250);
  assertEquals(parseSince("30m")(now), "2026-06-01T11:30:00Z");
  assertEquals(parseSince("2d")(now), "2026-05-30T12:00:00Z");
  assertEquals(parseSince("1w")(now), "2026-05-25T12:00:00Z");
  assertEquals(parseSince("2026-01-31")(now), "2026-01-31T00:00:00Z");
  assertEquals(parseSince("2026-01-31T08:00:00+02:00")(now), "2026-01-31T06:00:00Z");
  assertEquals(parseSince("2026-01-31T08:00:00.999Z")(now), "2026-01-31T08:00:00Z");
});

Deno.test("enterprise log list --since <age> counts back from the command's clock", async () => {
  await using ctl = await inProcessCtl();
  const now = () => Date.UTC(2026, 0, 1, 12, 0, 0);
  const r = await ctl(["enterprise", "log", "list", "--since", "2h"], { env, now });
  assertEquals(r.requests, [`GET /v1/logs?stime=${encodeURIComponent("2026-01-01T10:00:00Z")}&order=desc`]);
});
