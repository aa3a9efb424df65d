/**
 * Reads a table as `ctl` prints it (box-drawing borders) back into cells, so tests can assert
 * the columns and values people see.
 *
 * @module
 */

/** The cells of each line of a printed table, header first; borders dropped, cells trimmed. */
export function tableCells(text: string): string[][] {
  return text.split("\n").filter((line) => line.startsWith("│")).map((line) =>
    line.slice(1, -1).split("│").map((cell) => cell.trim())
  );
}

/** The table's rows as objects keyed by header. */
export function tableRows(text: string): Record<string, string>[] {
  const [head, ...rows] = tableCells(text);
  return rows.map((row) => Object.fromEntries(head.map((h, i) => [h, row[i]])));
}

/**
 * The fields of a KEY/VALUE table (one object), in order, as [key, value]: a value wrapped over
 * several lines is joined with spaces.
 */
export function keyValueCells(text: string): [string, string][] {
  const pairs: [string, string][] = [];
  for (const cells of tableCells(text)) {
    if (cells.length !== 2) throw new Error(`not a KEY/VALUE table (a line of ${cells.length} cells):\n${text}`);
    if (cells[0] === "" && pairs.length > 0) pairs.at(-1)![1] += ` ${cells[1]}`;
    else pairs.push([cells[0], cells[1]]);
  }
  return pairs;
}

/** A KEY/VALUE table's fields as an object. */
export function keyValues(text: string): Record<string, string> {
  return Object.fromEntries(keyValueCells(text));
}
