import { StoreCtlError } from "../lib/errors/mod.ts";

/**
 * Checks that `text` is JSON, else throws a usage error naming `from` with the line and column
 * of the first mistake (V8's own messages do not always give one).
 */
export function requireJson(text: string, from: string): void {
  try {
    JSON.parse(text);
  } catch (error) {
    const at = firstErrorIndex(text);
    const before = text.slice(0, at);
    const line = before.split("\n").length;
    const column = at - before.lastIndexOf("\n");
    const near = at < text.length ? ` near '${text.slice(at, at + 10).split("\n")[0]}'` : " (the input ends too early)";
    throw new StoreCtlError(
      "usage",
      `Invalid JSON in ${from} at line ${line}, column ${column}${near}: ${(error as Error).message}`,
      {
        tips: ['Nothing was sent. Quote inline JSON in single quotes: -d \'{"name":"x"}\''],
      },
    );
  }
}

/** Index of the first character where `text` stops being valid JSON. */
export function firstErrorIndex(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const space = () => {
    while (/\s/.test(text[i] ?? "")) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) if (text[i++] !== ch) (i--, fail());
  };
  const string = () => {
    i++;
    while (text[i] !== '"') {
      if (i >= text.length || text[i] < " ") fail();
      if (text[i] === "\\") {
        i++;
        if (text[i] === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? "x")) fail();
      }
      i++;
    }
    i++;
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match) fail();
    i += match![0].length;
  };
  const value = (): void => {
    space();
    const ch = text[i];
    if (ch === "{") {
      return container("}", () => {
        space();
        if (text[i] !== '"') fail();
        string();
        space();
        if (text[i] !== ":") fail();
        i++;
        value();
      });
    }
    if (ch === "[") return container("]", value);
    if (ch === '"') return string();
    if (ch === "t") return literal("true");
    if (ch === "f") return literal("false");
    if (ch === "n") return literal("null");
    number();
  };
  const container = (close: string, item: () => void) => {
    i++;
    space();
    if (text[i] === close) return void i++;
    for (;;) {
      item();
      space();
      if (text[i] === close) return void i++;
      if (text[i] !== ",") fail();
      i++;
    }
  };
  try {
    value();
    space();
    if (i < text.length) fail();
  } catch (index) {
    if (typeof index !== "number") throw index;
    return Math.min(index, text.length);
  }
  return text.length;
}
