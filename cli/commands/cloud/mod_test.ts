import { assert, assertEquals, assertMatch } from "../../../testing/assert.ts";
import { inProcessCtl } from "../../../testing/ctl_in_process.ts";
import type { GroupSpec } from "../../framework/spec.ts";
import { loadAll } from "../../framework/tree.ts";
import cloud from "./mod.ts";

/** The command paths under a group: `[["account", "get"], …]`. */
function paths(group: GroupSpec, prefix: string[] = []): string[][] {
  return Object.entries(group.commands).flatMap(([name, entry]) =>
    entry.kind === "group" ? paths(entry, [...prefix, name]) : [[...prefix, name]]
  );
}

Deno.test("ctl cloud: every command has a summary, its usage and an example in --help, and completes", async () => {
  const all = paths(await loadAll(cloud));
  assertEquals(all.length, 23);
  await using ctl = await inProcessCtl();
  for (const path of all) {
    const help = await ctl(["cloud", ...path, "--help"]);
    assertEquals(help.code, 0, path.join(" "));
    assertMatch(help.stdout, new RegExp(`^USAGE\n {2}ctl cloud ${path.join(" ")}`), path.join(" "));
    assertMatch(help.stdout, /\n\nExamples:\n {2}ctl cloud /, `${path.join(" ")} has an example`);
  }
  const completed = await ctl(["__complete", "--", "cloud", ""]);
  for (const noun of ["account", "database", "private-service-connect", "transit-gateway", "acl"]) {
    assert(completed.stdout.split("\n").includes(noun), `completion offers ${noun}`);
  }
  const verbs = await ctl(["__complete", "--", "cloud", "database", ""]);
  assertEquals(verbs.stdout.trim().split("\n").sort(), ["create", "delete", "get", "list", "update"]);
});
