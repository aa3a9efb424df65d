/**
 * Runs `deno test` and ends with the line CI reads: `N passed, N failed[, N skipped]`, counted
 * from the JUnit report, after a `skipped: <name>` line for each test that did not run.
 * Arguments are passed on to `deno test`.
 *
 * @module
 */
const junit = await Deno.makeTempFile({ suffix: ".xml" });
const { code } = await new Deno.Command(Deno.execPath(), {
  args: ["test", "-A", "--parallel", `--junit-path=${junit}`, ...Deno.args],
  stdout: "inherit",
  stderr: "inherit",
}).output();
const xml = await Deno.readTextFile(junit).catch(() => "");
await Deno.remove(junit).catch(() => {});

const cases = xml.match(/<testcase\b[\s\S]*?(?:\/>|<\/testcase>)/g) ?? [];
const failed = cases.filter((c) => /<(failure|error)\b/.test(c)).length;
const skipped = cases.filter((c) => /<skipped\b/.test(c)).length;
const passed = cases.length - failed - skipped;
// Each test that did not run, by name (a test that cannot run here says why in its name).
const unescape = (text: string) =>
  text.replace(
    /&(quot|apos|lt|gt|amp);/g,
    (_, e: string) => ({ quot: '"', apos: "'", lt: "<", gt: ">", amp: "&" })[e]!,
  );
for (const c of cases.filter((c) => /<skipped\b/.test(c))) {
  console.log(`skipped: ${unescape(c.match(/\bname="([^"]*)"/)?.[1] ?? "?")}`);
}
// A run that died before reporting (a type error, say) has no cases: count it as a failure.
const failures = failed || (code !== 0 ? 1 : 0);
console.log(`${passed} passed, ${failures} failed${skipped ? `, ${skipped} skipped` : ""}`);
Deno.exit(code);
