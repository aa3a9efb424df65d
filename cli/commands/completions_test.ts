import { assertEquals } from "../../testing/assert.ts";
import { inProcessCtl } from "../../testing/ctl_in_process.ts";

const complete = async (ctl: Awaited<ReturnType<typeof inProcessCtl>>, ...words: string[]) =>
  (await ctl(["__complete", "--", ...words])).stdout.split("\n").filter(Boolean);

Deno.test("__complete: the enterprise commands and their verbs", async () => {
  await using ctl = await inProcessCtl();
  assertEquals(await complete(ctl, "ent"), ["enterprise"]);
  assertEquals(await complete(ctl, "enterprise", "c"), ["cluster", "crdb", "crdb-task"]);
  assertEquals(await complete(ctl, "enterprise", "database", ""), [
    "list",
    "get",
    "create",
    "update",
    "delete",
    "stats",
  ]);
  assertEquals(await complete(ctl, "enterprise", "node", "r"), ["remove"]);
  assertEquals(await complete(ctl, "enterprise", "log", "list", "--order", ""), ["asc", "desc"]);
});

Deno.test("__complete: -o offers the output formats, -p the config's profile names, before or after the command", async () => {
  await using ctl = await inProcessCtl();
  await Deno.writeTextFile(
    `${ctl.dir}/config.toml`,
    '[profiles.lab]\ndeployment_type = "enterprise"\n[profiles.prod]\ndeployment_type = "cloud"\n',
  );
  assertEquals(await complete(ctl, "enterprise", "database", "list", "-o", ""), ["json", "yaml", "table", "auto"]);
  assertEquals(await complete(ctl, "profile", "list", "--output", "y"), ["yaml"]);
  assertEquals(await complete(ctl, "enterprise", "status", "-p", ""), ["lab", "prod"]);
  assertEquals(await complete(ctl, "api", "cloud", "get", "/x", "--profile", "p"), ["prod"]);
  assertEquals(await complete(ctl, "-p", "l"), ["lab"]);
  assertEquals(await complete(ctl, "-o", ""), ["json", "yaml", "table", "auto"]);
  assertEquals(await complete(ctl, "-p", "lab", "enterprise", "no"), ["node"]);
  assertEquals(await complete(ctl, "-vv", "-o", "json", "enterprise", "database", "g"), ["get"]);
});

Deno.test("__complete: -p offers nothing, quietly, without a config or with a broken one", async () => {
  await using ctl = await inProcessCtl();
  const none = await ctl(["__complete", "--", "enterprise", "status", "-p", ""]);
  assertEquals([none.code, none.stdout, none.stderr], [0, "", ""]);
  await Deno.writeTextFile(`${ctl.dir}/config.toml`, "[profiles.lab\n");
  const broken = await ctl(["__complete", "--", "-p", ""]);
  assertEquals([broken.code, broken.stdout, broken.stderr], [0, "", ""]);
});
