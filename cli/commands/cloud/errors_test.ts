import { assertEquals, assertMatch } from "../../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../../testing/ctl_in_process.ts";

const env = EMULATOR_ENV;

Deno.test("cloud: an nginx HTML 401 reads as one line; -vv shows the body", async () => {
  await using ctl = await inProcessCtl({ quirks: new Set(["html-401"]) });
  const wrong = { env: { ...env, STORE_CLOUD_API_SECRET: "wrong-secret" } };
  const run = await ctl(["cloud", "subscription", "list"], wrong);
  assertEquals(run.code, 4);
  const first = run.stderr.split("\n")[0];
  assertEquals(first, "Error: Authentication failed for environment (key ****): 401 Authorization Required");
  assertEquals(/<|nginx/.test(run.stderr), false, run.stderr);
  const verbose = await ctl(["cloud", "subscription", "list", "-vv"], wrong);
  assertMatch(verbose.stderr, /<title>401 Authorization Required<\/title>/);
  assertEquals(verbose.stderr.includes("wrong-secret"), false);
});

Deno.test("cloud: a plain-text 429 reads as one line after the retries", async () => {
  await using ctl = await inProcessCtl({ quirks: new Set(["text-429"]), rateLimitPerMinute: 1 });
  const run = await ctl(["cloud", "account", "get", "--retries", "0"], { env });
  assertEquals(run.code, 0, run.stderr);
  const limited = await ctl(["cloud", "account", "get", "--retries", "0"], { env });
  assertEquals(limited.code, 9);
  assertMatch(limited.stderr, /^Error: Rate limited: GET \/ got HTTP 429 after 1 attempt: Too Many Requests\n/);
});

Deno.test("enterprise: error bodies with description or message, and a 401 said once", async () => {
  await using ctl = await inProcessCtl();
  const wrong = await ctl(["enterprise", "cluster", "get"], { env: { ...env, STORE_ENTERPRISE_PASSWORD: "nope" } });
  assertEquals(wrong.code, 4);
  assertEquals(wrong.stderr.match(/Authentication failed/g)?.length, 1, wrong.stderr);
});
