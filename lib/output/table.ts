/** A column: its header and where each row's value comes from. */
export interface TableColumn {
  readonly header: string;
  /** A property name (dots for nesting), or a function of the row. */
  readonly value: string | ((row: Record<string, unknown>) => unknown);
}

type Table = typeof import("cli-table3");

/** Whether `value` prints as itself (not as JSON). */
export function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

/** Cells never shrink below this (plus the ellipsis). */
const MIN_WIDTH = 4;

/** The value of `column` in `row`. */
export function cellValue(row: Record<string, unknown>, column: TableColumn): unknown {
  if (typeof column.value === "function") return column.value(row);
  return column.value.split(".").reduce<unknown>(
    (value, key) => (value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined),
    row,
  );
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (isScalar(value)) return String(value);
  return JSON.stringify(value);
}

/**
 * Renders rows as a table that fits `width`: the widest columns shrink first and cut cells end
 * with `…`. Without columns, an array of objects uses their keys, an object becomes key/value
 * rows, and a list of values one column.
 */
export function renderTable(
  data: unknown,
  columns: readonly TableColumn[] | undefined,
  width: number | undefined,
  Table: Table,
  onHidden?: (headers: readonly string[]) => void,
): string {
  if (data === null || data === undefined) return "";
  if (isScalar(data)) return `${String(data)}\n`;
  let head: string[];
  let rows: string[][];
  if (Array.isArray(data)) {
    if (data.length === 0) return "";
    if (data.every((row) => row !== null && typeof row === "object" && !Array.isArray(row))) {
      const cols = columns ??
        [...new Set(data.flatMap((row) => Object.keys(row)))].map((key) => ({ header: key.toUpperCase(), value: key }));
      head = cols.map((c) => c.header);
      rows = data.map((row) => cols.map((c) => cell(cellValue(row, c))));
    } else {
      head = ["VALUE"];
      rows = data.map((value) => [cell(value)]);
    }
  } else if (columns) {
    head = columns.map((c) => c.header);
    rows = [columns.map((c) => cell(cellValue(data as Record<string, unknown>, c)))];
  } else {
    head = [];
    rows = Object.entries(data as Record<string, unknown>).map(([k, v]) => [k, cell(v)]);
  }
  const widths = fit(head, rows, width);
  if (widths.length < Math.max(head.length, rows[0]?.length ?? 0)) {
    onHidden?.(head.slice(widths.length));
    head = head.slice(0, widths.length);
    rows = rows.map((row) => row.slice(0, widths.length));
  }
  const table = new Table({
    ...(head.length > 0 && { head }),
    colWidths: widths.map((w) => w + 2),
    wordWrap: false,
    chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" }, // no rule between rows
    style: { head: [], border: [] },
  });
  table.push(...rows);
  return `${table.toString()}\n`;
}

/**
 * Column widths (without padding) that make the table fit `width`: the widest columns shrink
 * first, down to a few characters; past that the last columns are left out.
 */
function fit(head: readonly string[], rows: readonly string[][], width: number | undefined): number[] {
  const columns = Math.max(head.length, ...rows.map((r) => r.length));
  const widths = Array.from(
    { length: columns },
    (_, i) => Math.max(head[i]?.length ?? 0, ...rows.map((r) => [...(r[i] ?? "")].length), 1),
  );
  if (width === undefined) return widths;
  // Each column takes its text, a space on either side and one border; plus the closing border.
  const room = () => width - widths.length * 3 - 1;
  const narrowest = () => widths.reduce((sum, w) => sum + Math.min(w, MIN_WIDTH), 0);
  while (widths.length > 1 && narrowest() > room()) widths.pop();
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > room()) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest] <= MIN_WIDTH) break;
    widths[widest]--;
    total--;
  }
  return widths;
}
