/**
 * How a column gives way when a table is wider than the terminal:
 * - `key`: the row's own id, its name, its status: always shown, never cut;
 * - `value`: shown whole, or left out (a cut id, time or address is of no use);
 * - `text`: long free text (descriptions, messages, paths): cut first, ending in `…`.
 */
export type ColumnRole = "key" | "value" | "text";

/** A column: its header and where each row's value comes from. */
export interface TableColumn {
  readonly header: string;
  /** A property name (dots for nesting), or a function of the row. */
  readonly value: string | ((row: Record<string, unknown>) => unknown);
  /** Default: `key` for the first column and for NAME and STATUS, otherwise `value`. */
  readonly role?: ColumnRole;
}

type Table = typeof import("cli-table3");

/** Whether `value` prints as itself (not as JSON). */
export function isScalar(value: unknown): value is string | number | boolean | null {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

/** A cut cell keeps at least this many characters (with the `…`), and never less than its header. */
const MIN_WIDTH = 8;

/** In a table of the data's own keys, a value longer than this is free text. */
const TEXT_LENGTH = 40;

/** The role of a command's column: its own, else `key` for the first one and for NAME and STATUS. */
export function columnRole(column: TableColumn, index: number): ColumnRole {
  return column.role ?? (index === 0 || /^(NAME|STATUS)$/.test(column.header) ? "key" : "value");
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
  readonly head: string;
  /** Named on stderr when left out: the header, or the key a column was made from. */
  readonly name: string;
  readonly cells: readonly string[];
  readonly role: ColumnRole;
  /** The order columns join in (lower first): keys, values, free text, empty columns. */
  readonly rank: number;
}

const RANKS: Readonly<Record<ColumnRole, number>> = { key: 0, value: 1, text: 2 };

function laid(head: string, name: string, cells: readonly string[], role: ColumnRole): Laid {
  const empty = role !== "key" && cells.every((c) => c === "");
  return { head, name, cells, role, rank: empty ? 3 : RANKS[role] };
}

/** The characters `text` takes on a terminal (code points: wide characters are rare in this data). */
const chars = (text: string) => [...text].length;

/**
 * Renders data as a table that fits `width` (unlimited when undefined: every column whole),
 * the way `kubectl get` and `gh` do: every column has a role (`ColumnRole`). Keys always show,
 * whole; then values join in the command's order (or the data's), then free text, then columns
 * with nothing in them, while they fit; free text is cut to make room before anything is left
 * out. `onHidden` hears the names of the columns left out. One object (not a list) is KEY/VALUE
 * rows instead, one per column (or per key of the data), long values wrapped at the edge. A list
 * of values is one column.
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
  if (!Array.isArray(data)) return keyValueTable(data as Record<string, unknown>, columns, width, Table);
  const laid = layout(data, columns);
  if (laid.length === 0) return "";
  const { shown, widths } = fit(laid, width);
  if (shown.length < laid.length) onHidden?.(laid.filter((c) => !shown.includes(c)).map((c) => c.name));
  const table = new Table({
    head: shown.map((c) => c.head),
    colWidths: widths.map((w) => w + 2),
    wordWrap: false,
    ...PLAIN,
  });
  table.push(...shown[0].cells.map((_, r) => shown.map((c) => c.cells[r])));
  return `${table.toString()}\n`;
}

/** Box borders without a rule between rows, and no colours. */
const PLAIN = {
  chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" },
  style: { head: [], border: [] },
};

/** One object as KEY/VALUE rows: the keys whole, values wrapped to fit `width`. */
function keyValueTable(
  record: Record<string, unknown>,
  columns: readonly TableColumn[] | undefined,
  width: number | undefined,
  Table: Table,
): string {
  const rows = columns
    ? columns.map((column) => [column.header, cell(cellValue(record, column))])
    : Object.entries(record).map(([key, value]) => [key, cell(value)]);
  if (rows.length === 0) return "";
  const keys = Math.max(...rows.map(([key]) => chars(key)));
  const values = Math.max(...rows.map(([, value]) => chars(value)), 1);
  // A key, a value, a space on either side of each and three borders.
  const room = width === undefined ? values : Math.max(MIN_WIDTH, Math.min(values, width - keys - 7));
  const table = new Table({ colWidths: [keys + 2, room + 2], wordWrap: false, ...PLAIN });
  table.push(...rows.map(([key, value]) => [key, wrapCell(value, room)]));
  return `${table.toString()}\n`;
}

/** `text` in lines of at most `room` characters, broken between words where it can be. */
function wrapCell(text: string, room: number): string {
  const lines: string[] = [];
  let rest = [...text];
  while (rest.length > room) {
    const space = rest.lastIndexOf(" ", room);
    const cut = space > 0 ? space : room;
    lines.push(rest.slice(0, cut).join("").trimEnd());
    rest = rest.slice(space > 0 ? cut + 1 : cut);
  }
  lines.push(rest.join(""));
  return lines.join("\n");
}

/** The columns of a list, with their cells and roles. */
function layout(data: readonly unknown[], columns: readonly TableColumn[] | undefined): Laid[] {
  if (data.length === 0) return [];
  if (!data.every((row) => row !== null && typeof row === "object" && !Array.isArray(row))) {
    return [laid("VALUE", "VALUE", data.map(cell), "key")];
  }
  const rows = data as Record<string, unknown>[];
  if (columns) {
    return columns.map((column, i) =>
      laid(column.header, column.header, rows.map((row) => cell(cellValue(row, column))), columnRole(column, i))
    );
  }
  return keyColumns(rows);
}

/**
 * The columns of the data's own keys: the rows' own id (`id`, `uid`…, else the first key that
 * is or ends in one), `name` and `status` (else `state`) are keys and come first; the other
 * keys follow in the data's order, values longer than 40 characters and nested objects as free
 * text. Other ids (a real bdb's `group_uid`, `crdt_guid`…) are values like any other.
 */
function keyColumns(rows: readonly Record<string, unknown>[]): Laid[] {
  const names = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const own = names.find((key) => /^(id|uid|uuid|guid)$/i.test(key)) ?? names.find(isIdKey);
  const status = names.includes("status") ? "status" : names.includes("state") ? "state" : undefined;
  const keys = [own, names.includes("name") ? "name" : undefined, status].filter((k) => k !== undefined);
  return [...keys, ...names.filter((key) => !keys.includes(key))].map((key) => {
    const values = rows.map((row) => row[key]);
    const cells = values.map(cell);
    const text = values.some((v) => v !== null && typeof v === "object") || cells.some((c) => chars(c) > TEXT_LENGTH);
    return laid(key.toUpperCase(), key, cells, keys.includes(key) ? "key" : text ? "text" : "value");
  });
}

/**
 * Which columns to show, in their order, and their widths (without padding) to fit `width`.
 * Keys always show, whole, even past the edge. The others join in rank order (values, free
 * text, empty columns; within a rank, in their order) when they fit next to those already in,
 * free text at its narrowest; then free text widens into what room is left, the widest columns
 * narrowed first.
 */
function fit(columns: readonly Laid[], width: number | undefined): { shown: Laid[]; widths: number[] } {
  const natural = new Map(columns.map((c) => [c, Math.max(chars(c.head), ...c.cells.map(chars), 1)]));
  if (width === undefined) return { shown: [...columns], widths: columns.map((c) => natural.get(c)!) };
  const narrowest = (c: Laid) =>
    c.role === "text" ? Math.min(natural.get(c)!, Math.max(MIN_WIDTH, chars(c.head))) : natural.get(c)!;
  // Each column takes its text, a space on either side and one border; plus the closing border.
  const room = (n: number) => width - n * 3 - 1;
  const byRank = columns.map((c, i) => ({ c, i })).sort((a, b) => a.c.rank - b.c.rank || a.i - b.i).map(({ c }) => c);
  const kept = byRank.filter((c) => c.role === "key");
  for (const column of byRank.filter((c) => c.role !== "key")) {
    const next = [...kept, column];
    if (next.reduce((sum, c) => sum + narrowest(c), 0) <= room(next.length)) kept.push(column);
  }
  const shown = columns.filter((c) => kept.includes(c));
  const widths = shown.map((c) => natural.get(c)!);
  for (let excess = widths.reduce((a, b) => a + b, 0) - room(shown.length); excess > 0; excess--) {
    let widest = -1;
    shown.forEach((c, i) => {
      if (c.role === "text" && widths[i] > narrowest(c) && (widest < 0 || widths[i] > widths[widest])) widest = i;
    });
    if (widest < 0) break;
    widths[widest]--;
  }
  return { shown, widths };
}
