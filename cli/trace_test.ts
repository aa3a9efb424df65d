import { assert, assertEquals } from "../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../testing/ctl_in_process.ts";
import { parseTraceparent } from "../lib/trace_context/mod.ts";

const GET = ["api", "cloud", "get", "/subscriptions"];

Deno.test("--trace sends one new traceparent with every request, and -v prints its trace id", async () => {
  await using ctl = await inProcessCtl();
  const run = await ctl([...GET, "--trace", "-v"], { env: EMULATOR_ENV });
  assertEquals(run.code, 0, run.stderr);
  assert(run.traceparents.length > 0);
  const [first] = run.traceparents;
  assert(run.traceparents.every((t) => t === first), `one trace for the run: ${run.traceparents}`);
  const ids = parseTraceparent(first);
  assert(ids, `a valid traceparent: ${first}`);
  assert(run.stderr.includes(`trace id ${ids.traceId}`), run.stderr);
});

Deno.test("TRACEPARENT continues the caller's trace; without it or --trace no traceparent is sent", async () => {
  await using ctl = await inProcessCtl();
  const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  const continued = await ctl(GET, { env: { ...EMULATOR_ENV, TRACEPARENT: traceparent } });
  assertEquals(continued.traceparents, continued.requests.map(() => traceparent));
  const plain = await ctl(GET, { env: EMULATOR_ENV });
  assertEquals(plain.traceparents, plain.requests.map(() => undefined));
  assertEquals(plain.stderr, "");
});

Deno.test("a TRACEPARENT that is not one is named in a warning and not sent; --trace then starts a new trace", async () => {
  await using ctl = await inProcessCtl();
  const env = { ...EMULATOR_ENV, TRACEPARENT: "00-XYZ-b7ad6b7169203331-01" };
  const run = await ctl(GET, { env });
  assertEquals(run.code, 0);
  assert(
    run.stderr.includes("TRACEPARENT '00-XYZ-b7ad6b7169203331-01' is not a W3C traceparent (00-<32 hex"),
    run.stderr,
  );
  assertEquals(run.traceparents, run.requests.map(() => undefined));
  const traced = await ctl([...GET, "--trace"], { env });
  assert(traced.traceparents.every((t) => parseTraceparent(t) !== undefined));
});
