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
