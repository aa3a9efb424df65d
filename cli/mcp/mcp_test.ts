import { assertEquals, assertMatch, assertRejects, assertThrows } from "../../testing/assert.ts";
import { maskSecrets } from "./audit.ts";
import { arg, flag } from "../framework/params.ts";
import { command, group } from "../framework/spec.ts";
import { DEFAULT_POLICY, offers, readPolicy, refusal } from "./policy.ts";
import { argvOf, commandTools } from "./tools.ts";

const run = () => Promise.resolve(undefined);
const ROOT = group("root", {
  cloud: group("cloud", {
    thing: group("things", {
      list: command({
        summary: "list things",
        flags: { limit: flag.number("most", { min: 1, max: 9, default: 5 }) },
        run,
      }),
      create: command({
        summary: "make a thing",
        args: [arg.string("name", "its name")],
        flags: { sizeGb: flag.string("its size", { required: true }), wait: flag.boolean("wait for it") },
        run,
      }),
      delete: command({
        summary: "delete a thing",
        flags: { thingId: flag.string("which", { required: true }), tag: flag.list("tags") },
        confirm: () => "Delete it?",
        run,
      }),
    }),
  }),
  profile: group("not a tool", { list: command({ summary: "profiles", run }) }),
  api: command({ summary: "raw", args: [arg.string("deployment", "d")], run }),
});

Deno.test("commandTools(): a tool per command of the API nouns, the schema from its arguments and flags", async () => {
  const tools = await commandTools(ROOT);
  assertEquals(tools.map((t) => [t.name, t.access]), [
    ["cloud_thing_list", "read"],
    ["cloud_thing_create", "write"],
    ["cloud_thing_delete", "destructive"],
    ["api_cloud", "read"],
    ["api_enterprise", "read"],
  ]);
  const create = tools[1];
  assertEquals(create.inputSchema.required, ["name", "size_gb"]);
  assertEquals(Object.keys(create.inputSchema.properties as object), ["name", "size_gb", "wait", "query"]);
  assertEquals(tools[2].inputSchema.required, ["thing_id", "confirm"]);
  assertEquals((tools[0].inputSchema.properties as Record<string, unknown>).limit, {
    type: ["string", "number"],
    description: "most (1–9) (default 5)",
  });
});

Deno.test("argvOf(): the command line ctl runs; --yes only for a command that asks; unknown arguments named", async () => {
  const [list, create, remove, raw] = await commandTools(ROOT);
  assertEquals(argvOf(list, { limit: 3, query: "[].id" }), ["cloud", "thing", "list", "--limit=3", "--query", "[].id"]);
  assertEquals(argvOf(create, { name: "a b", size_gb: "1", wait: true }), [
    "cloud",
    "thing",
    "create",
    "a b",
    "--size-gb=1",
    "--wait",
  ]);
  assertEquals(argvOf(remove, { thing_id: "7", tag: ["x", "y"], confirm: true }), [
    "cloud",
    "thing",
    "delete",
    "--thing-id=7",
    "--tag",
    "x",
    "--tag",
    "y",
    "--yes",
  ]);
  assertEquals(argvOf(raw, { method: "post", path: "/x", body: { a: 1 } }), [
    "api",
    "cloud",
    "post",
    "/x",
    "--data",
    '{"a":1}',
  ]);
  assertThrows(() => argvOf(list, { limt: 3 }), /has no argument limt; it takes limit, query/);
});

Deno.test("policy: read-only offers reads; full offers deletes, each only with confirm: true; raw GET only", async () => {
  const [list, create, remove, raw] = await commandTools(ROOT);
  assertEquals([list, create, remove, raw].map((t) => offers(DEFAULT_POLICY, t)), [true, false, false, true]);
  assertMatch(refusal(DEFAULT_POLICY, create, {})!, /policy is read-only.*--policy read-write/);
  const full = { tier: "full", rawMethods: ["POST"] } as const;
  assertMatch(refusal(full, remove, { thing_id: "7" })!, /confirm: true/);
  assertEquals(refusal(full, remove, { thing_id: "7", confirm: true }), undefined);
  assertMatch(refusal(DEFAULT_POLICY, raw, { method: "delete" })!, /only GET.*--allow-raw DELETE/);
  assertEquals(refusal(full, raw, { method: "post" }), undefined);
  assertEquals(refusal(DEFAULT_POLICY, raw, { method: "get" }), undefined);
});

Deno.test("readPolicy(): tier, allow, deny and raw methods from TOML; a mistake names the file and the key", async () => {
  const tools = await commandTools(ROOT);
  const policy = await readPolicy(
    'tier = "read-write"\nallow = ["cloud_thing_delete"]\ndeny = ["cloud_thing_create"]\nraw_methods = ["post"]',
    "p.toml",
    tools,
  );
  assertEquals(policy, {
    tier: "read-write",
    rawMethods: ["POST"],
    allow: ["cloud_thing_delete"],
    deny: ["cloud_thing_create"],
  });
  const [list, create, remove] = tools;
  assertEquals([list, create, remove].map((t) => offers(policy, t)), [true, false, true]);
  assertMatch(refusal(policy, create, {})!, /denied by the policy file/);
  for (
    const [text, message] of [
      ['tier = "admin"', /p\.toml: tier must be read-only, read-write, full; got "admin"/],
      ['deny = ["cloud_thing_craete"]', /p\.toml: deny: no tool cloud_thing_craete/],
      ["allow = 3", /allow must be a list of strings/],
      ['tiers = "full"', /unknown key tiers; the keys are tier, allow, deny, raw_methods/],
      ["tier = ", /p\.toml: not TOML/],
    ] as const
  ) {
    await assertRejects(() => readPolicy(text, "p.toml", tools), message);
  }
});

Deno.test("maskSecrets(): passwords, secrets, tokens and keys at any depth; the rest as it was", () => {
  assertEquals(
    maskSecrets({ name: "a", password: "p", body: { api_key: "k", nested: [{ token: "t" }], size: 1 } }),
    { name: "a", password: "****", body: { api_key: "****", nested: [{ token: "****" }], size: 1 } },
  );
});
