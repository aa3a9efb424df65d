import { assertEquals, assertThrows } from "../testing/assert.ts";
import { rewriteImports } from "./bundle.ts";

Deno.test("rewriteImports() sends ctl's imports to the launcher, vendored libraries by their files", () => {
  assertEquals(
    rewriteImports(`a = import("yaml"); b = import("node:zlib"); c = import("@hono/node-server");`),
    `a = __import("./vendor/yaml.js"); b = __import("node:zlib"); c = __import("./vendor/_hono_node-server.js");`,
  );
});

Deno.test("rewriteImports() refuses an import the launcher could not serve, and non-ASCII text", () => {
  assertThrows(() => rewriteImports(`import("left-pad")`), /"left-pad".*CTL_VENDOR/);
  assertThrows(() => rewriteImports(`console.log("…")`), /non-ASCII/);
});
