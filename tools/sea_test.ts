import { assertEquals, assertThrows } from "../testing/assert.ts";
import { CTL_VENDOR } from "./bundle.ts";
import { packageOf, rewriteForSea, vendorScripts } from "./sea.ts";

Deno.test("packageOf: the npm package of a specifier, scoped or not", () => {
  assertEquals(packageOf("yaml"), "yaml");
  assertEquals(packageOf("@hono/node-server"), "@hono/node-server");
  assertEquals(packageOf("@modelcontextprotocol/sdk/server/index.js"), "@modelcontextprotocol/sdk");
});

Deno.test("vendorScripts: one script per package, every on-demand library in exactly one", () => {
  const scripts = vendorScripts();
  assertEquals([...scripts.values()].flat().sort(), [...CTL_VENDOR].sort());
  const mcp = scripts.get("vendor/_modelcontextprotocol_sdk.cjs") ?? [];
  assertEquals(mcp.length, CTL_VENDOR.filter((s) => s.startsWith("@modelcontextprotocol/sdk/")).length);
  assertEquals(scripts.get("vendor/yaml.cjs"), ["yaml"]);
});

Deno.test("rewriteForSea: built-ins, on-demand libraries and addons go through __import; anything else throws", () => {
  assertEquals(
    rewriteForSea(`import("node:fs"); import("yaml"); import("@napi-rs/keyring")`),
    `__import("node:fs"); __import("yaml"); __import("@napi-rs/keyring")`,
  );
  assertThrows(() => rewriteForSea(`import("left-pad")`), /imports "left-pad" on demand/);
});
