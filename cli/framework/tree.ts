import type { CommandSpec, Entry, GroupSpec } from "./spec.ts";

/** A loaded command or group. */
export type Loaded = CommandSpec | GroupSpec;

/** An entry with its module loaded (a lazy entry keeps its own summary). */
export async function load(entry: Entry): Promise<Loaded> {
  if (entry.kind !== "lazy") return entry;
  const loaded = (await entry.load()).default;
  return { ...loaded, summary: entry.summary };
}

/** Where the words of a command line lead. */
export interface Route {
  /** The command names along the way (`["profile", "set"]`). */
  readonly path: readonly string[];
  /** The entry each name leads to, loaded. */
  readonly chain: readonly Loaded[];
  /** Where the words stop: the last of `chain`, or the root. */
  readonly target: Loaded;
}

/**
 * Follows `words` through the tree, loading only the entries on the way, and stops at the first
 * word that is not a command name (a flag, an argument, or a mistake the parser reports).
 */
export async function route(root: GroupSpec, words: readonly string[]): Promise<Route> {
  const path: string[] = [];
  const chain: Loaded[] = [];
  let target: Loaded = root;
  for (const word of words) {
    if (target.kind !== "group") break;
    const entry = target.commands[word];
    if (!entry) break;
    path.push(word);
    target = await load(entry);
    chain.push(target);
  }
  return { path, chain, target };
}

/**
 * Starts loading the module the first word names, and the parser unless only help is asked, so
 * that they load beside everything else rather than after it; `route()` then finds them loaded.
 */
export function prefetch(root: GroupSpec, words: readonly string[]): void {
  const entry = root.commands[words.find((w) => !w.startsWith("-")) ?? ""];
  if (!entry) return;
  // A failure shows when the route or the parser loads it.
  if (entry.kind === "lazy") entry.load().catch(() => {});
  if (!words.some((w) => w === "--help" || w === "-h")) import("./stricli.ts").catch(() => {});
}

/** The whole tree with every module loaded, for completion. */

export async function loadAll(group: GroupSpec): Promise<GroupSpec> {
  const commands: Record<string, Loaded> = {};
  for (const [name, entry] of Object.entries(group.commands)) {
    const loaded = await load(entry);
    commands[name] = loaded.kind === "group" ? await loadAll(loaded) : loaded;
  }
  return { ...group, commands };
}
