import type { StdStream } from "./types.ts";

/** An output stream kept in memory: what a command wrote, for a caller that runs it in process. */
export interface Capture extends StdStream {
  readonly text: () => string;
}

/**
 * A {@link Capture}; `isTTY` and `columns` say what the command is told of it.
 *
 * @example
 * ```ts
 * const out = capture();
 * out.write("hello\n");
 * out.text(); // "hello\n"
 * ```
 */
export function capture(isTTY = false, columns = 100): Capture {
  let text = "";
  const decoder = new TextDecoder();
  return {
    write: (data) => void (text += typeof data === "string" ? data : decoder.decode(data)),
    async writeStream(body) {
      for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
    },
    flush: () => Promise.resolve(),
    isTTY,
    columns: () => (isTTY ? columns : undefined),
    closed: false,
    text: () => text,
  };
}
