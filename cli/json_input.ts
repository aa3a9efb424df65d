import { StoreCtlError } from "../lib/errors/mod.ts";

/**
 * Decodes a request body as UTF-8, refusing invalid bytes (naming the offset of the first one)
 * instead of sending U+FFFD; a byte-order mark is dropped, so JSON positions count from the text.
 */
export function decodeUtf8(bytes: Uint8Array, from: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes); // strips a BOM by default
  } catch {
    const offset = firstInvalidByte(bytes);
    throw new StoreCtlError(
      "usage",
      `${from} is not valid UTF-8: byte ${offset} (0x${bytes[offset].toString(16).padStart(2, "0")}) ` +
        "starts no valid character; nothing was sent",
      { tips: ["Save the file as UTF-8 (iconv -f <encoding> -t UTF-8 in > out)"] },
    );
  }
}

/** The offset of the first byte that does not belong to a valid UTF-8 sequence. */
export function firstInvalidByte(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i];
    const length = b < 0x80
      ? 1
      : b >= 0xc2 && b <= 0xdf
      ? 2
      : b >= 0xe0 && b <= 0xef
      ? 3
      : b >= 0xf0 && b <= 0xf4
      ? 4
      : 0;
    if (length === 0 || i + length > bytes.length) return i;
    for (let k = 1; k < length; k++) if ((bytes[i + k] & 0xc0) !== 0x80) return i;
    // Overlong forms, surrogates and code points past U+10FFFF.
    if (
      (b === 0xe0 && bytes[i + 1] < 0xa0) || (b === 0xed && bytes[i + 1] > 0x9f) ||
      (b === 0xf0 && bytes[i + 1] < 0x90) || (b === 0xf4 && bytes[i + 1] > 0x8f)
    ) return i;
    i += length;
  }
  return bytes.length;
}

/**
 * Checks that `text` is JSON, else throws a usage error naming `from`, the line and column of
 * the first mistake and what was expected there, in the same words on every runtime (V8's own
 * messages differ between versions and repeat the position), with a tip for that mistake.
 */
export function requireJson(text: string, from: string): void {
  try {
    JSON.parse(text);
  } catch {
    const { index: at, expected } = firstError(text);
    const before = text.slice(0, at);
    const line = before.split("\n").length;
    const column = at - before.lastIndexOf("\n");
    const near = at < text.length ? ` near '${text.slice(at, at + 10).split("\n")[0]}'` : " (the input ends too early)";
    throw new StoreCtlError(
      "usage",
      `Invalid JSON in ${from} at line ${line}, column ${column}${near}: expected ${expected}; nothing was sent`,
      { tips: [jsonTip(text, at, from, `at line ${line}, column ${column}`)] },
    );
  }
}

/** What to do about the mistake at `at`. */
function jsonTip(text: string, at: number, from: string, where: string): string {
  // Words without quotes, and none in the text: the shell took them (-d {"name":"x"} unquoted).
  if (from === "--data" && !text.includes('"') && /[A-Za-z_]/.test(text[at] ?? "")) {
    return `Quote inline JSON in single quotes, so the shell keeps its double quotes: -d '{"name":"x"}'`;
  }
  if (at >= text.length) return 'Something is missing at the end: a closing }, ] or "';
  if (/[}\]]/.test(text[at]) && /,\s*$/.test(text.slice(0, at))) return "JSON has no comma before a closing } or ]";
  return `Fix ${from} ${where}`;
}

/** Index of the first character where `text` stops being valid JSON. */
export function firstErrorIndex(text: string): number {
  return firstError(text).index;
}

/** Where `text` stops being valid JSON (its length when it is valid), and what was expected there. */
function firstError(text: string): { index: number; expected: string } {
  let i = 0;
  const fail = (expected: string): never => {
    throw { index: i, expected };
  };
  const space = () => {
    while (/\s/.test(text[i] ?? "")) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) if (text[i++] !== ch) (i--, fail(`'${word}'`));
  };
  const string = () => {
    i++;
    while (text[i] !== '"') {
      if (i >= text.length) fail('the closing " of the string');
      if (text[i] < " ") fail("no line break or control character inside a string (write \\n)");
      if (text[i] === "\\") {
        i++;
        if (text[i] === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail("four hex digits after \\u");
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? "x")) {
          fail('an escape: \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX');
        }
      }
      i++;
    }
    i++;
  };
  const number = () => {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!match) fail("a value");
    i += match![0].length;
  };
  const value = (): void => {
    space();
    const ch = text[i];
    if (ch === "{") {
      return container("}", () => {
        space();
        if (text[i] !== '"') fail("a property name in double quotes");
        string();
        space();
        if (text[i] !== ":") fail("':' after the property name");
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
      if (text[i] !== ",") fail(`',' or '${close}'`);
      i++;
    }
  };
  try {
    value();
    space();
    if (i < text.length) fail("the end of the input");
  } catch (error) {
    const { index, expected } = error as { index?: unknown; expected: string };
    if (typeof index !== "number") throw error;
    return { index: Math.min(index, text.length), expected };
  }
  return { index: text.length, expected: "nothing more" };
}

/**
 * The body of `-d`: inline JSON, `@file` (relative to the caller's directory) or `@-` (standard
 * input), checked to be UTF-8 JSON before anything is sent.
 */
export async function readJsonBody(
  data: string,
  read: { file(path: string): Promise<Uint8Array>; stdin(): Promise<Uint8Array> },
): Promise<string> {
  const from = data === "@-" ? "standard input" : data.startsWith("@") ? data.slice(1) : "--data";
  const text = data === "@-"
    ? decodeUtf8(await read.stdin(), from)
    : data.startsWith("@")
    ? decodeUtf8(await read.file(from), from)
    : data.replace(/^\uFEFF/, "");
  requireJson(text, from);
  return text;
}
