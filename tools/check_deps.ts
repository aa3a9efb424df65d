/**
 * Enforces the rooms of `docs/architecture.md` and what each may import:
 *
 * 1. `lib` imports nothing from another room (its tests may use `testing` and `tools`).
 * 2. `cli`, `server` and `emulator` never import each other, nor `testing` or `tests` (their tests may use
 *    `testing`), and reach `lib` only through `mod.ts` files. `bench`, `tools` and `testing` never import
 *    `tests`: what they share with the suites lives in `testing`.
 * 3. `Deno.*` and `node:*` appear only in `lib/runtime/` and the entry files.
 * 4. Third-party packages come only through the import map; a store client only in its adapter.
 * 5. Inside `lib`, the lower rooms never import the higher: `lib/task_model` imports nothing,
 *    `lib/store` not `lib/tasks`, `lib/runtime` not `lib/pipelines` (see `LIB_LAYERS`).
 *
 * Test files (`*_test.ts`) may use `Deno.*` and `node:*`. Run: `deno run -A tools/check_deps.ts`.
 *
 * @module
 */

/** A source file to check, with its path relative to the repository root. */
export interface SourceFile {
  readonly path: string;
  readonly text: string;
}

/** One broken rule. */
export interface Violation {
  readonly path: string;
  readonly line: number;
  readonly rule: number;
  readonly message: string;
}

const RUNTIME_ALLOWED = [/^lib\/runtime\//, /^cli\/main\.ts$/, /^cli\/node_main\.ts$/, /^server\/main\.ts$/];
const STORE_CLIENTS: Record<string, RegExp> = {
  "ioredis": /^lib\/store\/redis(_cluster)?\.ts$/,
  "@upstash/redis": /^lib\/store\/upstash\.ts$/,
};
/** The programs: each stands on `lib` alone. */
const PROGRAMS = ["cli", "server", "emulator"];
/** The rooms whose code follows rules 3 and 4 (scripts in `bench` and `tools` may use what they like). */
const STRICT = ["lib", ...PROGRAMS];
/** Rooms of `lib` and the rooms of `lib` they must not import (rule 5). */
export const LIB_LAYERS: Record<string, readonly string[]> = {
  task_model: ["*"],
  store: ["tasks", "pipelines", "answer"],
  runtime: ["pipelines", "tasks", "store", "answer"],
};

/** Returns every violation in `files`, given the import map's keys. */
export function findViolations(files: readonly SourceFile[], importMapKeys: readonly string[]): Violation[] {
  const violations: Violation[] = [];
  for (const file of files) {
    const area = file.path.split("/")[0];
    const isTest = file.path.endsWith("_test.ts");
    const code = stripComments(file.text);
    const report = (index: number, rule: number, message: string) =>
      violations.push({ path: file.path, line: code.slice(0, index).split("\n").length, rule, message });

    for (const match of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)) {
      const specifier = match[1];
      const index = match.index!;
      if (specifier.startsWith(".")) {
        const target = resolve(file.path, specifier);
        const targetArea = target.includes("/") ? target.split("/")[0] : "";
        const testHelper = isTest && (targetArea === "testing" || targetArea === "tools");
        if (area === "lib" && targetArea !== "lib" && targetArea !== "" && !testHelper) {
          report(index, 1, `lib must not import from ${targetArea}/ (${specifier})`);
        }
        if (PROGRAMS.includes(area) && [...PROGRAMS, "testing", "tests"].includes(targetArea) && targetArea !== area) {
          if (!testHelper) report(index, 2, `${area} must not import from ${targetArea}/ (${specifier})`);
        }
        if (["bench", "tools", "testing"].includes(area) && targetArea === "tests" && !isTest) {
          report(index, 2, `${area} must not import from tests/ (${specifier}): move what it needs to testing/`);
        }
        if (PROGRAMS.includes(area) && targetArea === "lib" && !target.endsWith("/mod.ts") && !isTest) {
          report(index, 2, `import lib through its mod.ts files, not ${target}`);
        }
        const [room, targetRoom] = [file.path.split("/")[1], target.split("/")[1]];
        const below = LIB_LAYERS[room] ?? [];
        if (
          area === "lib" && targetArea === "lib" && room !== targetRoom &&
          (below.includes(targetRoom) || below.includes("*"))
        ) {
          report(index, 5, `lib/${room} must not import lib/${targetRoom} (${specifier})`);
        }
      } else if (!STRICT.includes(area)) {
        continue;
      } else if (specifier.startsWith("node:")) {
        if (!isTest && !RUNTIME_ALLOWED.some((r) => r.test(file.path))) {
          report(index, 3, `${specifier} is only allowed in lib/runtime/ and entry files`);
        }
      } else if (/^(npm|jsr|https?):/.test(specifier)) {
        report(index, 4, `${specifier}: add the package to deno.json "imports" and import it by name`);
      } else {
        const key = importMapKeys.find((k) => specifier === k || (k.endsWith("/") && specifier.startsWith(k)));
        if (!key) report(index, 4, `${specifier} is not in the deno.json import map`);
        const owner = STORE_CLIENTS[specifier];
        if (owner && !owner.test(file.path)) report(index, 4, `${specifier} may only be imported by its store adapter`);
      }
    }
    if (STRICT.includes(area) && !isTest && !RUNTIME_ALLOWED.some((r) => r.test(file.path))) {
      for (const match of code.matchAll(/\bDeno\.\w+/g)) {
        report(match.index!, 3, `${match[0]} is only allowed in lib/runtime/ and entry files`);
      }
    }
  }
  return violations;
}

function stripComments(text: string): string {
  // Blank out comments but keep line breaks, so line numbers stay right.
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, " "))
    .replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

function resolve(from: string, specifier: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path);
    else if (/\.(ts|tsx|js|mjs)$/.test(entry.name)) yield path;
  }
}

if (import.meta.main) {
  const importMap = JSON.parse(await Deno.readTextFile("deno.json")).imports ?? {};
  const files: SourceFile[] = [];
  for (const dir of [...STRICT, "testing", "bench", "tools"]) {
    try {
      for await (const path of walk(dir)) files.push({ path, text: await Deno.readTextFile(path) });
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  const violations = findViolations(files, Object.keys(importMap));
  for (const v of violations) console.error(`${v.path}:${v.line}: rule ${v.rule}: ${v.message}`);
  console.log(`dependency check: ${files.length} files, ${violations.length} violation(s)`);
  if (violations.length > 0) Deno.exit(1);
}
