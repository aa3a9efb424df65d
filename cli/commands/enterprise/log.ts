import { listLogs } from "../../../lib/enterprise/mod.ts";
import { StoreCtlError } from "../../../lib/errors/mod.ts";
import { type Flag, flag } from "../../framework/params.ts";
import { command, group } from "../../framework/spec.ts";

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * `--since`: an ISO 8601 time (`2026-01-01`, `2026-01-01T12:00:00Z`) or an age (`30m`, `12h`,
 * `7d`) counted back from `now`, as the ISO time the API takes. Checked when the flag is read;
 * the time is worked out when the command runs, on its clock.
 */
export function parseSince(input: string): (now: number) => string {
  // The API's form: whole seconds in UTC (`2026-01-31T08:00:00Z`), as its own times are written.
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19) + "Z";
  const age = /^(\d+)([smhdw])$/.exec(input);
  if (age) return (now) => iso(now - Number(age[1]) * UNIT_MS[age[2]]);
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(input) && !Number.isNaN(Date.parse(input))) {
    return () => iso(Date.parse(input));
  }
  throw new StoreCtlError(
    "usage",
    `must be an ISO 8601 time (2026-01-31, 2026-01-31T08:00:00Z) or an age such as 30m, 12h, 7d; got '${input}'`,
  );
}

const list = command({
  summary: "list the cluster's events, newest first",
  description: `List the cluster's events, newest first (--order asc for oldest first). --since takes an
ISO 8601 time or an age counted back from now (s, m, h, d, w: 30m, 12h, 7d); --limit caps the
count.`,
  flags: {
    since: {
      ...flag.string("only events from this time on: ISO 8601, or an age such as 30m, 12h, 7d", {
        placeholder: "time",
      }),
      parse: parseSince,
    } as Flag<((now: number) => string) | undefined>,
    // No default: without --limit the API's own applies.
    limit: {
      ...flag.number("at most this many events", { min: 1, max: 100_000, integer: true, default: 1 }),
      default: undefined,
    } as Flag<number | undefined>,
    order: flag.choice("desc: newest first (default); asc: oldest first", ["asc", "desc"]),
  },
  output: {
    columns: [
      { header: "TIME", value: "time" },
      { header: "SEVERITY", value: "severity" },
      { header: "TYPE", value: "type" },
    ],
    empty: "No events",
  },
  examples: [
    "ctl enterprise log list --since 24h --limit 20",
    "ctl enterprise log list --since 2026-01-01 --order asc",
  ],
  async run({ flags }, f) {
    return await listLogs(await f.enterprise(), {
      since: flags.since?.(f.ctx.now()),
      limit: flags.limit,
      order: flags.order ?? "desc",
    });
  },
});

/** `ctl enterprise log list`: the cluster's event log. */
export default group("list the cluster's event log", { list });
