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
