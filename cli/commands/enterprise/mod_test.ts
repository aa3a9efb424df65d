import { assert, assertEquals, assertMatch } from "../../../testing/assert.ts";
import { inProcessCtl } from "../../../testing/ctl_in_process.ts";
import type { GroupSpec } from "../../framework/spec.ts";
import { loadAll } from "../../framework/tree.ts";
import enterprise from "./mod.ts";

/** Every command path under `group`, e.g. `["database", "create"]`. */
function commandPaths(group: GroupSpec, prefix: string[] = []): string[][] {
  return Object.entries(group.commands).flatMap(([name, entry]) =>
    entry.kind === "group" ? commandPaths(entry, [...prefix, name]) : [[...prefix, name]]
  );
}

Deno.test("ctl enterprise: every command has a one-line summary, usage and an example in --help", async () => {
  await using ctl = await inProcessCtl();
  const paths = commandPaths(await loadAll(enterprise));
  assert(paths.length >= 27, `${paths.length} commands`);
  for (const path of paths) {
    const r = await ctl(["enterprise", ...path, "--help"]);
    const name = `ctl enterprise ${path.join(" ")}`;
    assertEquals(r.code, 0, name);
    assertMatch(r.stdout, new RegExp(`^USAGE\n {2}${name}`), name);
    assertMatch(r.stdout, new RegExp(`\nExamples:\n {2}${name}`), name);
  }
  const list = await ctl(["enterprise", "--help"]);
  assertMatch(list.stdout, /\n {2}database +manage the cluster's databases\n/);
});

Deno.test("ctl enterprise: a group without a command lists its commands (exit 2)", async () => {
  await using ctl = await inProcessCtl();
  const r = await ctl(["enterprise", "node"]);
  assertEquals(r.code, 2);
  assertMatch(r.stderr, /'ctl enterprise node' needs a command: list, get, update, remove, stats/);
});
