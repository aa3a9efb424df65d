import { assertEquals } from "../testing/assert.ts";
import { findViolations } from "./check_deps.ts";

const MAP = ["hono", "hono/", "ioredis"];
const rules = (path: string, text: string) => findViolations([{ path, text }], MAP).map((v) => v.rule);

Deno.test("findViolations() accepts code that follows the rules", () => {
  assertEquals(
    rules("cli/commands/x.ts", `import { serve } from "../../lib/runtime/mod.ts";\nimport { Hono } from "hono";`),
    [],
  );
  assertEquals(rules("lib/runtime/serve.ts", `import x from "node:fs";\nDeno.serve();`), []);
  assertEquals(rules("server/emulator/x.ts", `// Deno.serve() in a comment\n/** import "npm:x" */`), []);
  assertEquals(rules("server/x.ts", `import type { StatusCode } from "hono/utils/http-status";`), []);
});

Deno.test("findViolations() reports each broken rule with its number and line", () => {
  assertEquals(rules("lib/http/x.ts", `import { a } from "../../cli/run.ts";`), [1]);
  assertEquals(rules("cli/x.ts", `import { a } from "../server/mod.ts";`), [2]);
  assertEquals(rules("server/x.ts", `import { a } from "../lib/http/retry.ts";`), [2]);
  assertEquals(rules("lib/http/x.ts", `import fs from "node:fs";`), [3]);
  assertEquals(rules("emulator/main.ts", `const a = 1;\nDeno.exit(1);`), [3]);
  assertEquals(rules("server/x.ts", `import { createEmulator } from "../emulator/mod.ts";`), [2]);
  assertEquals(rules("cli/x.ts", `import { createEmulator } from "../emulator/mod.ts";`), [2]);
  assertEquals(rules("emulator/x.ts", `import { createApp } from "../server/mod.ts";`), [2]);
  assertEquals(rules("server/x.ts", `import { until } from "../testing/until.ts";`), [2]);
  assertEquals(rules("tools/x.ts", `import { ctl } from "../tests/ctl_scenarios.ts";`), [2]);
  assertEquals(rules("testing/x.ts", `import { World } from "../tests/ctl_scenarios.ts";`), [2]);
  assertEquals(rules("lib/store/x.ts", `import { demoTask } from "../tasks/demo.ts";`), [5]);
  assertEquals(rules("lib/runtime/x.ts", `import { serveEngine } from "../pipelines/engine_worker.ts";`), [5]);
  assertEquals(rules("lib/task_model/x.ts", `import { mask } from "../errors/mod.ts";`), [5]);
  assertEquals(rules("lib/x.ts", `import { z } from "npm:zod@4";`), [4]);
  assertEquals(rules("lib/x.ts", `import { z } from "zod";`), [4]);
  assertEquals(rules("lib/store/memory.ts", `import Redis from "ioredis";`), [4]);
  const [v] = findViolations([{ path: "lib/a.ts", text: "\n\nimport x from 'node:os';" }], MAP);
  assertEquals(v.line, 3);
});

Deno.test("findViolations() lets test files use Deno, node: and the testing kit", () => {
  assertEquals(rules("lib/http/x_test.ts", `import fs from "node:fs";\nDeno.test("a", () => {});`), []);
  assertEquals(rules("lib/http/x_test.ts", `import { assert } from "../../testing/assert.ts";`), []);
  assertEquals(rules("lib/http/x_test.ts", `import { run } from "../../cli/run.ts";`), [1]);
});
