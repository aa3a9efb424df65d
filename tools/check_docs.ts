/**
 * Type-checks the examples in doc comments (`deno check --doc`), for `deno task check`.
 *
 * `deno check --doc` adds an import of the module's exports to every example, which the strict
 * `noUnusedLocals` then reports as unused; those reports, and unused variables in examples that
 * only show a call, are left out. Every other error fails the check.
 *
 * @module
 */
const UNUSED = ["TS6133", "TS6192", "TS6196", "TS6198"];

const out = await new Deno.Command(Deno.execPath(), {
  args: ["check", "--doc", ...(Deno.args.length ? Deno.args : ["lib", "cli", "server", "tools"])],
  env: { NO_COLOR: "1" },
  stdout: "piped",
  stderr: "piped",
}).output();
const text = new TextDecoder().decode(out.stderr);
const errors = text.split(/\n(?=TS\d+ \[ERROR\])/).filter((e) => /^TS\d+ \[ERROR\]/.test(e));
const real = errors.filter((e) => !(UNUSED.includes(e.slice(0, 6)) && /#\d+-\d+\.ts/.test(e)));
for (const error of real) console.error(error.trimEnd());
console.log(`doc examples: ${errors.length - real.length} unused-name report(s) left out, ${real.length} error(s)`);
if (real.length > 0 || (out.code !== 0 && errors.length === 0)) {
  if (errors.length === 0) console.error(text);
  Deno.exit(1);
}
