import { StoreCtlError } from "../errors/mod.ts";

/** Output formats; `auto` is a table on a terminal and JSON when piped. */
const FORMATS = ["json", "yaml", "table", "auto"] as const;
export type Format = (typeof FORMATS)[number];

/** Whether `value` names a format (as opposed to a file path, which `-o` also accepts). */
export function isFormat(value: string): value is Format {
  return (FORMATS as readonly string[]).includes(value);
}

/** How to render. */
export interface RenderOptions {
  readonly format: Format;
  /** Scalars unquoted, arrays of scalars one per line. */
  readonly raw?: boolean;
  /** Whether stdout is a terminal, deciding `auto`. */
  readonly isTTY?: boolean;
}

/**
 * Renders data for stdout, ending with a newline (empty output stays empty).
 *
 * @example
 * ```ts
 * await render({ name: "a" }, { format: "json" }); // '{\n  "name": "a"\n}\n'
 * await render(["a", "b"], { format: "json", raw: true }); // "a\nb\n"
 * ```
 *
 * The YAML and table libraries load only when those formats are used: they cost more start-up
 * time than the rest of the CLI together.
 */
export async function render(data: unknown, options: RenderOptions): Promise<string> {
  if (options.raw) return rawText(data);
  const format = options.format === "auto" ? (options.isTTY ? "table" : "json") : options.format;
  switch (format) {
    case "json":
      return `${JSON.stringify(data ?? null, null, 2)}\n`;
    case "yaml":
      return (await import("yaml")).default.stringify(data ?? null);
    case "table":
      return table(data, (await import("cli-table3")).default);
  }
}

function rawText(data: unknown): string {
  if (data === null || data === undefined) return "";
  if (Array.isArray(data) && data.every(isScalar)) return data.map((v) => `${String(v)}\n`).join("");
  if (isScalar(data)) return `${String(data)}\n`;
  return `${JSON.stringify(data)}\n`;
}

function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (isScalar(value)) return String(value);
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

function table(data: unknown, Table: typeof import("cli-table3")): string {
  if (isScalar(data) || data === undefined) return rawText(data);
  const grid = new Table({ style: { head: [], border: [] } });
  if (Array.isArray(data)) {
    if (data.length === 0) return "";
    if (!data.every((row) => row !== null && typeof row === "object" && !Array.isArray(row))) {
      const column = new Table({ head: ["VALUE"], style: { head: [], border: [] } });
      column.push(...data.map((v) => [cell(v)]));
      return `${column.toString()}\n`;
    }
    const columns = [...new Set(data.flatMap((row) => Object.keys(row)))];
    const rows = new Table({ head: columns.map((c) => c.toUpperCase()), style: { head: [], border: [] } });
    rows.push(...data.map((row) => columns.map((c) => cell((row as Record<string, unknown>)[c]))));
    return `${rows.toString()}\n`;
  }
  if (typeof data === "object") {
    grid.push(...Object.entries(data as Record<string, unknown>).map(([k, v]) => [k, cell(v)]));
    return `${grid.toString()}\n`;
  }
  throw new StoreCtlError("usage", `Cannot render a ${typeof data} as a table; use -o json`);
}
