import { assertEquals } from "../testing/assert.ts";
import { inProcessCtl } from "../testing/ctl_in_process.ts";
import { type ErrorCode, StoreCtlError } from "../lib/errors/mod.ts";
import { arg } from "./framework/params.ts";
import { command, group } from "./framework/spec.ts";
import { EXIT_CODES } from "./run.ts";

/** A tree whose one command fails with the code (and HTTP status) it is given. */
const ROOT = group("test", {
  fail: command({
    summary: "fail with a code",
    args: [arg.string("code", "an error code"), arg.optional("status", "an HTTP status")],
    run({ args: [code, status] }) {
      const options = status === undefined ? { tips: ["a tip"] } : { status: Number(status), tips: ["a tip"] };
      throw new StoreCtlError(code as ErrorCode, `failed with ${code}`, options);
    },
  }),
});

const RETRYABLE: readonly [ErrorCode, number | undefined, boolean][] = [
  ["usage", undefined, false],
  ["config", undefined, false],
  ["auth", 401, false],
  ["not_found", 404, false],
  ["validation", 422, false],
  ["conflict", 409, false],
  ["api", 500, true],
  ["api", 400, false],
  ["rate_limited", 429, true],
  ["network", undefined, true],
  ["tls", undefined, false],
  ["timeout", undefined, true],
  ["cancelled", undefined, false],
  ["filesystem", undefined, false],
  ["damaged", undefined, false],
  ["internal", undefined, false],
];

Deno.test("--error-format json: every code as one JSON object on stderr — code, message, status, retryable, tips — and its exit code", async () => {
  await using ctl = await inProcessCtl({}, ROOT);
  assertEquals(new Set(RETRYABLE.map(([code]) => code)).size, Object.keys(EXIT_CODES).length, "every code");
  for (const [code, status, retryable] of RETRYABLE) {
    const words = ["fail", code, ...(status === undefined ? [] : [String(status)]), "--error-format", "json"];
    const run = await ctl(words, { tty: { stdout: true, stderr: true } });
    assertEquals(run.code, EXIT_CODES[code], code);
    const { error } = JSON.parse(run.stderr);
    assertEquals(
      { code: error.code, status: error.status, retryable: error.retryable, tips: error.tips?.slice(0, 1) },
      { code, status, retryable, tips: ["a tip"] },
      code,
    );
    assertEquals(error.message.startsWith(`failed with ${code}`) || code === "internal", true, error.message);
  }
});

Deno.test("errors: text on a terminal, JSON with -o json, and --error-format text overrides it; a usage mistake too", async () => {
  await using ctl = await inProcessCtl({}, ROOT);
  const tty = { tty: { stdout: true, stderr: true } };
  assertEquals((await ctl(["fail", "conflict", "409"], tty)).stderr.startsWith("Error: failed with conflict"), true);
  assertEquals(JSON.parse((await ctl(["fail", "conflict", "409", "-o", "json"], tty)).stderr).error.code, "conflict");
  const text = await ctl(["fail", "conflict", "409", "-o", "json", "--error-format", "text"], tty);
  assertEquals(text.stderr.startsWith("Error: failed with conflict"), true, text.stderr);
  const mistake = await ctl(["fial", "--error-format", "json"], tty);
  assertEquals([mistake.code, JSON.parse(mistake.stderr).error.code], [2, "usage"]);
});
