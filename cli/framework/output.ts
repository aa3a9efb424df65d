import { StoreCtlError } from "../../lib/errors/mod.ts";
import { applyQuery, isFormat, render } from "../../lib/output/mod.ts";
import type { Factory } from "../factory.ts";
import type { GlobalOptions } from "./globals.ts";
import type { OutputSpec, OutputTarget } from "./spec.ts";

const FORMATS = "json, yaml, table or auto";

/**
 * Reads `-o` and `--file`: `-o` takes a format, or, where the command writes a file, a path. A
 * bare word that is not a format is a mistake (`-o yml`), never a file name: write `./yml`.
 */
export function outputTarget(globals: GlobalOptions, spec: OutputSpec, file: string | undefined): OutputTarget {
  const o = globals.output;
  if (file !== undefined) {
    if (o !== undefined && !isFormat(o)) {
      throw new StoreCtlError("usage", `Give either -o ${o} or --file ${file}, not both`);
    }
    return { format: o ?? "auto", file };
  }
  if (o === undefined || isFormat(o)) return { format: o ?? "auto" };
  const meant = nearFormat(o);
  const guess = meant ? [`Did you mean -o ${meant}?`] : [];
  if (!spec.writesFile) {
    throw new StoreCtlError("usage", `-o takes ${FORMATS}; got '${o}'`, {
      tips: meant ? guess : ["This command writes no file; use > to save its output"],
    });
  }
  if (/^[\w-]+$/.test(o)) {
    throw new StoreCtlError("usage", `'${o}' is not an output format (${FORMATS})`, {
      tips: [...guess, `To write a file called ${o}, use --file ${o} or -o ./${o}`],
    });
  }
  return { format: "auto", file: o };
}

/** The format `word` is a slip of: another case, a common short form, or one or two letters off. */
function nearFormat(word: string): string | undefined {
  const w = word.toLowerCase();
  if (w === "yml") return "yaml";
  return ["json", "yaml", "table", "auto"].find((format) => w === format || editDistance(w, format) <= 2);
}

/** The Levenshtein distance: the fewest letters added, removed or changed to turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length];
}

/**
 * Writes a command's result through `-q`, `--raw` and the format: `auto` is a table on a
 * terminal when the command has columns, otherwise JSON (pretty, coloured on a terminal). A
 * table fits the terminal unless `--wide` (see `renderTable`; the columns left out are named on
 * stderr); one that would be empty says so on stderr. With a file target the result goes there.
 */
export async function writeResult(f: Factory, data: unknown, spec: OutputSpec, target: OutputTarget): Promise<void> {
  const shown = f.globals.query ? await applyQuery(data, f.globals.query) : data;
  if (target.file) {
    const format = target.format === "yaml" ? "yaml" : "json";
    const path = f.resolvePath(target.file);
    await f.ctx.fs.writeFileAtomic(path, await render(shown, { format }));
    f.ctx.stderr.write(`Saved the result to ${target.file}\n`);
    return;
  }
  const tty = f.ctx.stdout.isTTY;
  const format = f.globals.raw
    ? "raw"
    : target.format === "auto"
    ? (tty && spec.columns ? "table" : "json")
    : target.format;
  const table = format === "table" && spec.rows && !f.globals.query ? spec.rows(shown) : shown;
  if (format === "table" && Array.isArray(table) && table.length === 0) {
    f.ctx.stderr.write(`${spec.empty ?? "No results"}\n`);
    return;
  }
  f.ctx.stdout.write(
    await render(table, {
      format,
      // A query reshapes the data: its own keys make the columns then.
      columns: f.globals.query ? undefined : spec.columns,
      width: tty && !f.globals.wide ? f.ctx.stdout.columns() : undefined,
      color: f.color,
      onHiddenColumns: (names) =>
        f.ctx.stderr.write(
          `${names.length} more column${names.length > 1 ? "s" : ""} did not fit (${names.join(", ")}): ` +
            "show them with --wide, -o json, or -q\n",
        ),
    }),
  );
}
