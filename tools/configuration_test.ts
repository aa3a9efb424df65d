/**
 * docs/configuration.md names every environment variable the code reads: the service's (its
 * validated schema) and `ctl`'s (every `STORE_…` name and the few others it reads).
 */
import { assertEquals } from "../testing/assert.ts";
import { SERVICE_VARIABLES } from "../server/config.ts";

const ROOT = new URL("..", import.meta.url);
/** What ctl reads besides `STORE_…` names. */
const OTHERS = ["XDG_CONFIG_HOME", "XDG_STATE_HOME", "RUST_LOG", "NO_COLOR", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"];

/** Every `STORE_…` name in the source of `cli/`, `lib/` and `server/` (tests and the emulator left out). */
async function storeVariables(): Promise<Set<string>> {
  const names = new Set<string>();
  const walk = async (dir: URL) => {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory && entry.name !== "emulator") await walk(url);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) {
        for (const [name] of (await Deno.readTextFile(url)).matchAll(/\bSTORE_[A-Z][A-Z0-9_]*[A-Z0-9]\b/g)) {
          names.add(name);
        }
      }
    }
  };
  for (const dir of ["cli/", "lib/", "server/"]) await walk(new URL(dir, ROOT));
  return names;
}

/** The bindings the edge entry reads by name (`env.X`); the others go through the service's schema. */
async function edgeBindings(): Promise<string[]> {
  const edge = await Deno.readTextFile(new URL("server/edge.ts", ROOT));
  return [...new Set([...edge.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]))];
}

Deno.test("docs/configuration.md names every variable ctl and the service read, and the edge entry's bindings", async () => {
  const doc = await Deno.readTextFile(new URL("docs/configuration.md", ROOT));
  const named = new Set([...doc.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]));
  const read = [...SERVICE_VARIABLES, ...await storeVariables(), ...OTHERS, ...await edgeBindings()];
  assertEquals(read.filter((name) => !named.has(name)).sort(), [], "add them to docs/configuration.md");
});
