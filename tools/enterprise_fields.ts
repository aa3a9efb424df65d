/**
 * Regenerates `emulator/conformance/enterprise_fields.json`: the field names and JSON types
 * of the real enterprise API's objects, which the emulator's conformance test holds it to.
 *
 * Derived from two public sources, read from their git directories (no work tree needed):
 * - captures of a real cluster: redis-developer/redis-enterprise-rs, `tests/fixtures/*.json`
 *   (objects taken from these are `exact`: the emulator shows every field, and no other);
 * - the REST API reference: RedisLabs/redislabs-docs, `content/rs/references/rest-api/`
 *   (objects with no capture: the emulator shows only documented fields, with the documented
 *   type, and at least those of the reference's example bodies).
 *
 * Only names and types are kept, never values.
 *
 * Run: `deno run -A tools/enterprise_fields.ts [--captures <dir>] [--docs <dir>] [--out <file>]`
 * (defaults: the mirrors under /work/.mirror and the conformance file).
 *
 * @module
 */

/** A JSON type as `typeof` tells it, with arrays and null apart. */
export type JsonType = "string" | "number" | "boolean" | "object" | "array" | "null";

/** The fields of one real object. */
export interface FieldSet {
  /** Where it comes from: repository and path. */
  readonly from: string;
  /** `true`: exactly these fields (from captures); `false`: at most these (from the reference). */
  readonly exact: boolean;
  /** Every field and its JSON type (several when the sources disagree). */
  readonly fields: Record<string, JsonType[]>;
  /** The fields every instance has. */
  readonly required: string[];
}

/** The JSON type of a value. */
export function jsonType(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value as JsonType;
}

/** The field set of the objects in `samples` (each an instance of one kind of object). */
export function fieldsOf(samples: readonly Record<string, unknown>[], from: string): FieldSet {
  const fields: Record<string, JsonType[]> = {};
  for (const sample of samples) {
    for (const [name, value] of Object.entries(sample)) {
      const types = fields[name] ??= [];
      if (!types.includes(jsonType(value))) types.push(jsonType(value));
    }
  }
  const required = Object.keys(fields).filter((name) => samples.every((sample) => name in sample));
  return { from, exact: true, fields: sorted(fields), required: required.sort() };
}

/** The JSON type of a reference table's "Type/Value" cell (and the lines after it, for code cells). */
export function docType(cell: string, following: readonly string[] = []): JsonType {
  const text = cell.trim();
  if (text.startsWith("{{<code>}}")) {
    const code = [text.slice("{{<code>}}".length), ...following].join("\n").trim();
    return code.startsWith("[") ? "array" : "object";
  }
  // A link to another object's page: `[CRDB database_config](…) object`.
  if (/^\[[^\]]*\]\([^)]*\)\s*object/i.test(text)) return "object";
  if (/^(array|list)\b|^\[/i.test(text)) return "array";
  if (/^(integer|int|float|number)\b/i.test(text)) return "number";
  if (/^boolean\b/i.test(text)) return "boolean";
  if (/^(string|'|\*\*')/i.test(text)) return "string";
  if (/object\b/i.test(text)) return "object";
  return "string";
}

/** The fields of a reference object page: the rows of its "Name | Type/Value | Description" table. */
export function docFields(markdown: string, from: string, required: readonly string[]): FieldSet {
  const lines = markdown.split("\n");
  const fields: Record<string, JsonType[]> = {};
  // Only the object's own table (its header names a type column), not tables of error codes.
  let inTable = false;
  lines.forEach((line, i) => {
    if (/^\|?\s*(Name|Field)\s*\|\s*Type/.test(line)) inTable = true;
    else if (!line.startsWith("|") && !/^\s|^\[|^\}/.test(line) && line.trim() !== "") inTable = false;
    const match = /^\|\s*([a-z_][a-zA-Z0-9_]*)\s*\|\s*([^|]*)/.exec(line);
    if (!inTable || !match) return;
    fields[match[1]] = [docType(match[2], lines.slice(i + 1, i + 8))];
  });
  return { from, exact: false, fields: sorted(fields), required: [...required].sort() };
}

/** The keys of the objects in the first JSON code block after `heading` in a reference page. */
export function exampleKeys(markdown: string, heading: RegExp): string[] {
  const start = markdown.search(heading);
  const block = /```json\n([\s\S]*?)```/.exec(markdown.slice(start))?.[1] ?? "";
  const keys = new Set<string>();
  for (const [, key] of block.matchAll(/^\s*"([a-z_][a-z0-9_]*)"\s*:/gm)) keys.add(key);
  return [...keys];
}

/**
 * A captured field set widened by the reference: fields it documents that the capture lacks
 * (and the types it gives) are allowed too; the required ones stay the capture's.
 */
export function widen(captured: FieldSet, documented: FieldSet): FieldSet {
  const fields = { ...captured.fields };
  for (const [name, types] of Object.entries(documented.fields)) {
    fields[name] = [...new Set([...(fields[name] ?? []), ...types])];
  }
  return { ...captured, from: `${captured.from}; ${documented.from}`, fields: sorted(fields) };
}

function sorted<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

type Json = Record<string, unknown>;

/** Builds every field set from the two sources (`show(path)` reads a file of each). */
export function deriveFieldSets(
  capture: (path: string) => unknown,
  reference: (path: string) => string,
): Record<string, FieldSet> {
  const fx = (name: string) => `redis-developer/redis-enterprise-rs tests/fixtures/${name}`;
  const doc = (path: string) => `RedisLabs/redislabs-docs content/rs/references/rest-api/${path}`;
  const read = (name: string) => capture(`tests/fixtures/${name}`) as never;
  const objects = (path: string) => reference(`content/rs/references/rest-api/objects/${path}`);
  const requests = (path: string) => reference(`content/rs/references/rest-api/requests/${path}`);

  const nodes: Json[] = [
    ...read("nodes.json") as Json[],
    ...read("nodes_list.json") as Json[],
    read("node_single.json"),
  ];
  const bdbs: Json[] = [read("bdb_single.json"), ...read("bdbs_list.json") as Json[]];
  const users: Json[] = [...read("users_list.json") as Json[], read("user_single.json")];
  const intervals = (file: string): Json[] => {
    const body = read(file) as Json | Json[];
    return (Array.isArray(body) ? body : [body]).flatMap((entry) => entry.intervals as Json[]);
  };
  const bootstrap = read("bootstrap_status.json") as Json;
  const actions = read("actions_list.json") as Json;
  const alerts = Object.values(read("cluster_alerts.json") as Record<string, Json>);

  return {
    cluster: fieldsOf([read("cluster.json")], fx("cluster.json")),
    node: fieldsOf(nodes, fx("nodes.json, nodes_list.json, node_single.json")),
    bdb: fieldsOf(bdbs, fx("bdb_single.json, bdbs_list.json")),
    bdb_endpoint: fieldsOf(bdbs.flatMap((b) => b.endpoints as Json[]), fx("bdb_single.json (endpoints[])")),
    bdb_stats: fieldsOf(intervals("bdbs_stats.json"), fx("bdbs_stats.json (intervals[])")),
    node_stats: fieldsOf(intervals("nodes_stats.json"), fx("nodes_stats.json (intervals[])")),
    cluster_stats: fieldsOf(intervals("cluster_stats.json"), fx("cluster_stats.json (intervals[])")),
    alert: widen(
      fieldsOf(alerts, fx("cluster_alerts.json (values)")),
      docFields(objects("alert.md"), doc("objects/alert.md"), []),
    ),
    user: fieldsOf(users, fx("users_list.json, user_single.json")),
    bootstrap: fieldsOf([bootstrap], fx("bootstrap_status.json")),
    bootstrap_status: fieldsOf([bootstrap.bootstrap_status as Json], fx("bootstrap_status.json (bootstrap_status)")),
    local_node_info: fieldsOf([bootstrap.local_node_info as Json], fx("bootstrap_status.json (local_node_info)")),
    actions_list: fieldsOf([actions], fx("actions_list.json")),
    // The reference's action object: "When a task fails, the error_code and error_message fields describe the error".
    action: widen(fieldsOf(actions.actions as Json[], fx("actions_list.json (actions[])")), {
      ...docFields(objects("action.md"), doc("objects/action.md"), []),
      fields: { ...docFields(objects("action.md"), "", []).fields, error_code: ["string"], error_message: ["string"] },
    }),
    state_machine: fieldsOf(actions["state-machines"] as Json[], fx("actions_list.json (state-machines[])")),
    role: docFields(
      objects("role.md"),
      doc("objects/role.md"),
      exampleKeys(requests("roles/_index.md"), /## Get all roles/),
    ),
    redis_acl: docFields(
      objects("redis_acl.md"),
      doc("objects/redis_acl.md"),
      exampleKeys(requests("redis_acls/_index.md"), /## Get all Redis ACLs/),
    ),
    crdb: docFields(objects("crdb/_index.md"), doc("objects/crdb/_index.md"), ["guid", "name"]),
    crdb_task: docFields(objects("crdb_task.md"), doc("objects/crdb_task.md"), ["id", "status"]),
    log_event: {
      ...fieldsOf([], doc("requests/logs/_index.md")),
      exact: false,
      fields: sorted(
        Object.fromEntries(
          exampleKeys(requests("logs/_index.md"), /## Get cluster events log/).map((key) => [
            key,
            [key === "node_uid" ? "number" : "string"] as JsonType[],
          ]),
        ),
      ),
      required: ["severity", "time", "type"],
    },
  };
}

function gitShow(dir: string): (path: string) => string {
  return (path) => {
    const out = new Deno.Command("git", { args: ["-C", dir, "show", `HEAD:${path}`] }).outputSync();
    if (!out.success) {
      throw new Error(`git -C ${dir} show HEAD:${path} failed: ${new TextDecoder().decode(out.stderr)}`);
    }
    return new TextDecoder().decode(out.stdout);
  };
}

function head(dir: string): string {
  const out = new Deno.Command("git", { args: ["-C", dir, "rev-parse", "HEAD"] }).outputSync();
  return new TextDecoder().decode(out.stdout).trim();
}

if (import.meta.main) {
  const arg = (name: string, fallback: string) => {
    const i = Deno.args.indexOf(name);
    return i >= 0 ? Deno.args[i + 1] : fallback;
  };
  const captures = arg("--captures", "/work/.mirror/redis-developer+redis-enterprise-rs/repo");
  const docs = arg("--docs", "/work/.mirror/RedisLabs+redislabs-docs/repo");
  const out = arg("--out", new URL("../emulator/conformance/enterprise_fields.json", import.meta.url).pathname);
  const showCapture = gitShow(captures);
  const objects = deriveFieldSets((path) => JSON.parse(showCapture(path)), gitShow(docs));
  const file = {
    source: [
      `redis-developer/redis-enterprise-rs@${head(captures)} tests/fixtures (captures of a real cluster)`,
      `RedisLabs/redislabs-docs@${head(docs)} content/rs/references/rest-api (the REST API reference)`,
    ],
    generated_by: "deno run -A tools/enterprise_fields.ts",
    note: "Field names and JSON types only. exact: the emulator shows every field and no other; " +
      "otherwise it shows only these, at least the required ones.",
    objects,
  };
  await Deno.writeTextFile(out, JSON.stringify(file, null, 2) + "\n");
  console.error(`wrote ${Object.keys(objects).length} field sets to ${out}`);
}
