import { colorJson } from "./json_color.ts";
import { isScalar, renderTable, type TableColumn } from "./table.ts";

/** Output formats; `auto` is decided by the caller (a table on a terminal, JSON when piped). */
const FORMATS = ["json", "yaml", "table", "auto"] as const;
export type Format = (typeof FORMATS)[number];

/** Whether `value` names a format (as opposed to a file path, which `-o` also accepts). */
export function isFormat(value: string): value is Format {
  return (FORMATS as readonly string[]).includes(value);
}

/** How to render. */
export interface RenderOptions {
  readonly format: Exclude<Format, "auto"> | "raw";
  /** Table columns; without them, the data's own keys. */
  readonly columns?: readonly TableColumn[];
  /** The width a table must fit (a terminal's); unlimited when undefined: every column whole. */
  readonly width?: number;
  /** ANSI colours (JSON). */
  readonly color?: boolean;
  /**
   * Told which columns were left out of a table to fit `width`: their headers, or the keys of
   * columns made from the data's keys (what `-q` takes).
   */
  readonly onHiddenColumns?: (names: readonly string[]) => void;
}

/**
 * Renders data for stdout, ending with a newline (empty output stays empty). `raw` prints
 * strings unquoted and arrays of scalars one per line.
 *
 * The YAML and table libraries load only when those formats are used: they cost more start-up
 * time than the rest of the CLI together.
 *
 * @example
 * ```ts
 * import { render } from "./format.ts";
 * await render({ name: "a" }, { format: "json" }); // '{\n  "name": "a"\n}\n'
 * await render(["a", "b"], { format: "raw" }); // "a\nb\n"
 * ```
 */
export async function render(data: unknown, options: RenderOptions): Promise<string> {
  switch (options.format) {
    case "raw":
      return rawText(data);
    case "json":
      return `${options.color ? colorJson(data ?? null) : JSON.stringify(data ?? null, null, 2)}\n`;
    case "yaml":
      return (await import("yaml")).default.stringify(data ?? null);
    case "table":
      return renderTable(
        data,
        options.columns,
        options.width,
        (await import("cli-table3")).default,
        options.onHiddenColumns,
      );
  }
}

function rawText(data: unknown): string {
  if (data === null || data === undefined) return "";
  if (Array.isArray(data) && data.every(isScalar)) return data.map((v) => `${String(v)}\n`).join("");
  if (isScalar(data)) return `${String(data)}\n`;
  return `${JSON.stringify(data)}\n`;
}
