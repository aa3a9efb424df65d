/** A column: its header and where each row's value comes from. */
export interface TableColumn {
  readonly header: string;
  /** A property name (dots for nesting), or a function of the row. */
  readonly value: string | ((row: Record<string, unknown>) => unknown);
  /**
   * The column holds ids people type into the next command: never cut, left out last. Without
   * it, `isIdColumn` decides from the header and the key.
   */
  readonly id?: boolean;
}

type Table = typeof import("cli-table3");

/** Whether `value` prints as itself (not as JSON). */
export function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

/** A cut cell keeps at least this many characters (with the `…`), and never less than its header. */
const MIN_WIDTH = 8;

/** A header whose last word is ID, UID or GUID: `ID`, `TASK ID`, `CRDB GUID`. */
const ID_HEADER = /(^|\s)(ID|UID|UUID|GUID)$/i;
const NAME_KEY = /(^|[_-])name$|[a-z\d]Name$/i;
const STATUS_KEY = /(^|[_-])(status|state)$|[a-z\d](Status|State)$/i;

/**
 * Whether a column holds ids: its `id` when set; otherwise a header whose last word is ID, UID
 * or GUID, or a key (the last part of a dotted value) that is or ends in id, uid or guid.
 *
 * @example
 * ```ts
 * import { isIdColumn } from "./table.ts";
 * isIdColumn({ header: "TASK ID", value: "taskId" }); // true
 * isIdColumn({ header: "RESOURCE", value: "response.resourceId" }); // true
 * isIdColumn({ header: "NAME", value: "name" }); // false
 * ```
 */
export function isIdColumn(column: TableColumn): boolean {
  if (column.id !== undefined) return column.id;
  if (ID_HEADER.test(column.header)) return true;
  return typeof column.value === "string" && isIdKey(column.value.split(".").at(-1)!);
}

/** A key named id, uid, uuid or guid, or ending in one: `task_id`, `databaseId`, `crdb_guid` (not `paid`, `valid`). */
function isIdKey(key: string): boolean {
  return /(^|[_-])(id|uid|uuid|guid)$/i.test(key) || /[a-z\d](Id|ID|Uid|UID|Uuid|UUID|Guid|GUID)$/.test(key);
}

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

/** A column being laid out: its text and how it may give way. */
interface Laid {
  /** Shown in the header row; empty for key/value tables. */
  readonly head: string;
  /** Named on stderr when left out: the header, or the key a column was made from. */
  readonly name: string;
  readonly cells: readonly string[];
  readonly id: boolean;
  /** Lower is kept longer. */
  readonly rank: number;
}

/**
 * Renders rows as a table that fits `width` (unlimited when undefined: every column whole). Ids
 * (`isIdColumn`) are never cut; other columns narrow, widest first, down to their header or a
 * few characters (cut cells end with `…`), and columns that still do not fit are left out, the
 * least important first; `onHidden` hears their names. Without columns, an array of objects
 * uses its keys (ids, names and status kept first), an object becomes key/value rows, and a list
 * of values one column.
 */
export function renderTable(
  data: unknown,
  columns: readonly TableColumn[] | undefined,
  width: number | undefined,
  Table: Table,
  onHidden?: (names: readonly string[]) => void,
): string {
  if (data === null || data === undefined) return "";
  if (isScalar(data)) return `${String(data)}\n`;
  const laid = layout(data, columns);
  if (laid.length === 0) return "";
  const { shown, widths } = fit(laid, width);
  if (shown.length < laid.length) onHidden?.(laid.filter((c) => !shown.includes(c)).map((c) => c.name));
  const keyValue = shown.every((c) => c.head === "");
  const table = new Table({
    ...(!keyValue && { head: shown.map((c) => c.head) }),
    colWidths: widths.map((w) => w + 2),
    wordWrap: false,
    chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" }, // no rule between rows
    style: { head: [], border: [] },
  });
  const rows = shown[0].cells.map((_, r) => shown.map((c) => c.cells[r]));
  table.push(...rows);
  return `${table.toString()}\n`;
}

/** The columns of `data`, with their cells, whether they are ids, and the order they give way in. */
function layout(data: object, columns: readonly TableColumn[] | undefined): Laid[] {
  if (!Array.isArray(data)) {
    const record = data as Record<string, unknown>;
    if (columns) return fromColumns([record], columns);
    const entries = Object.entries(record);
    if (entries.length === 0) return [];
    return [
      { head: "", name: "key", cells: entries.map(([k]) => k), id: true, rank: 0 },
      { head: "", name: "value", cells: entries.map(([, v]) => cell(v)), id: false, rank: 1 },
    ];
  }
  if (data.length === 0) return [];
  if (!data.every((row) => row !== null && typeof row === "object" && !Array.isArray(row))) {
    return [{ head: "VALUE", name: "VALUE", cells: data.map(cell), id: false, rank: 0 }];
  }
  if (columns) return fromColumns(data, columns);
  const keys = [...new Set(data.flatMap((row) => Object.keys(row)))];
  // The rows' own id (`id`, `uid`…, else the first id key) comes before the ids of other things
  // (a real bdb also has `group_uid`, `crdt_guid`…), which come after names and status.
  const own = keys.find((key) => /^(id|uid|uuid|guid)$/i.test(key)) ?? keys.find(isIdKey);
  return keys.map((key) => {
    const values = data.map((row) => (row as Record<string, unknown>)[key]);
    const id = isIdKey(key);
    // Its id, names and status first; then other ids, values that read as text; nested objects last.
    const rank = key === own
      ? 0
      : NAME_KEY.test(key)
      ? 1
      : STATUS_KEY.test(key)
      ? 2
      : id
      ? 3
      : values.every(isScalarOrMissing)
      ? 4
      : 5;
    return { head: key.toUpperCase(), name: key, cells: values.map(cell), id, rank };
  });
}

function isScalarOrMissing(value: unknown): boolean {
  return value === undefined || isScalar(value);
}

/** A command's columns: ids first to stay, the others in the command's order. */
function fromColumns(rows: readonly Record<string, unknown>[], columns: readonly TableColumn[]): Laid[] {
  return columns.map((column) => {
    const id = isIdColumn(column);
    return {
      head: column.header,
      name: column.header,
      cells: rows.map((row) => cell(cellValue(row, column))),
      id,
      rank: id ? 0 : 1,
    };
  });
}

/**
 * Which columns to show, in their order, and their widths (without padding) to fit `width`.
 * Columns join in rank order (ids, then the others; for a table of the data's keys: ids, names,
 * status, values, nested objects) while they fit: a column of a worse rank may narrow itself
 * and its peers but never cuts a better one, and ids never narrow. The first column always
 * shows, whole: a table may be wider than the terminal rather than cut an id. Then the widest
 * columns of the worst rank narrow first until the table fits.
 */
function fit(columns: readonly Laid[], width: number | undefined): { shown: Laid[]; widths: number[] } {
  const natural = new Map(
    columns.map((c) => [c, Math.max([...c.head].length, ...c.cells.map((s) => [...s].length), 1)]),
  );
  if (width === undefined) return { shown: [...columns], widths: columns.map((c) => natural.get(c)!) };
  const narrowest = (c: Laid) =>
    c.id ? natural.get(c)! : Math.min(natural.get(c)!, Math.max(MIN_WIDTH, [...c.head].length));
  // Each column takes its text, a space on either side and one border; plus the closing border.
  const room = (n: number) => width - n * 3 - 1;
  const byRank = columns.map((c, i) => ({ c, i })).sort((a, b) => a.c.rank - b.c.rank || a.i - b.i).map(({ c }) => c);
  const kept: Laid[] = [byRank[0]];
  for (const column of byRank.slice(1)) {
    const next = [...kept, column];
    const need = next.reduce((sum, c) => sum + (c.rank < column.rank ? natural.get(c)! : narrowest(c)), 0);
    if (need <= room(next.length)) kept.push(column);
  }
  const shown = columns.filter((c) => kept.includes(c));
  const widths = shown.map((c) => natural.get(c)!);
  let excess = widths.reduce((a, b) => a + b, 0) - room(shown.length);
  const ranks = [...new Set(shown.map((c) => c.rank))].sort((a, b) => b - a);
  for (const rank of ranks) {
    while (excess > 0) {
      let widest = -1;
      for (let i = 0; i < shown.length; i++) {
        if (shown[i].rank !== rank || widths[i] <= narrowest(shown[i])) continue;
        if (widest < 0 || widths[i] > widths[widest]) widest = i;
      }
      if (widest < 0) break;
      widths[widest]--;
      excess--;
    }
  }
  return { shown, widths };
}
