/**
 * Behaviours of the real APIs that a client must survive, which the emulator reproduces on
 * demand (`--real-api` turns all of them on, `--quirks a,b` some). Off, the emulator answers
 * as the specification's tables describe; the shapes of its objects are the real ones either way.
 */
export const QUIRKS = {
  "networking-tasks":
    "cloud networking reads (peerings, private service connect, transit gateways) answer 202 with a task whose response.resource holds the data",
  "task-404": "a cloud task answers 404 for its first reads, as a task created a moment ago does",
  "page-404": "the page after the last of a paged cloud list answers 404",
  "html-401": "a cloud 401 is an nginx HTML page",
  "text-429": "a cloud 429 is plain text",
  "strict-routes": "only documented routes answer: the specification's other spellings are 404",
} as const;

/** One behaviour of the real APIs. */
export type Quirk = keyof typeof QUIRKS;

/** Every quirk, as `--real-api` turns them on. */
export const ALL_QUIRKS: ReadonlySet<Quirk> = new Set(Object.keys(QUIRKS) as Quirk[]);

/**
 * Parses a comma-separated list of quirk names (`--quirks task-404,html-401`).
 *
 * @example
 * ```ts
 * import { parseQuirks } from "./quirks.ts";
 * parseQuirks("task-404, html-401"); // Set { "task-404", "html-401" }
 * ```
 */
export function parseQuirks(list: string): Set<Quirk> {
  const names = list.split(",").map((name) => name.trim()).filter(Boolean);
  const unknown = names.filter((name) => !(name in QUIRKS));
  if (unknown.length > 0) {
    throw new Error(`unknown quirk '${unknown[0]}'; known: ${Object.keys(QUIRKS).join(", ")}`);
  }
  return new Set(names as Quirk[]);
}
