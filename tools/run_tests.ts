/**
 * Runs `deno test` and ends with the line CI reads: `N passed, N failed`, counted from the JUnit
 * report. Skipped tests (a system tool missing outside CI) are counted on the line before, with
 * what each missing tool needs. Arguments are passed on to `deno test`.
 *
 * @module
 */
const junit = await Deno.makeTempFile({ suffix: ".xml" });
// Tests that skip write why there (testing/tools.ts `missingTools`).
const skips = await Deno.makeTempFile({ suffix: ".txt" });
const { code } = await new Deno.Command(Deno.execPath(), {
  args: ["test", "-A", "--parallel", `--junit-path=${junit}`, ...Deno.args],
  env: { STORE_TEST_SKIPS: skips },
  stdout: "inherit",
  stderr: "inherit",
}).output();
const reasons = [...new Set((await Deno.readTextFile(skips).catch(() => "")).split("\n").filter(Boolean))];
await Deno.remove(skips).catch(() => {});
const xml = await Deno.readTextFile(junit).catch(() => "");
await Deno.remove(junit).catch(() => {});

const cases = xml.match(/<testcase\b[\s\S]*?(?:\/>|<\/testcase>)/g) ?? [];
const failed = cases.filter((c) => /<(failure|error)\b/.test(c)).length;
const skipped = cases.filter((c) => /<skipped\b/.test(c)).length;
const passed = cases.length - failed - skipped;
// A run that died before reporting (a type error, say) has no cases: count it as a failure.
const failures = failed || (code !== 0 ? 1 : 0);
if (skipped) console.log(`${skipped} skipped: ${reasons.join("; ") || "marked to be ignored"}`);
console.log(`${passed} passed, ${failures} failed`);
Deno.exit(code);
