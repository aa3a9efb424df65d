/**
 * Assertions for tests, on `node:assert` (JSR's `@std/assert` is not reachable here), named
 * like Deno's standard library so tests read the same.
 *
 * @module
 */
import assertNode from "node:assert/strict";

export const assert: (value: unknown, message?: string) => asserts value = assertNode.ok;
export const assertEquals: <T>(actual: unknown, expected: T, message?: string) => asserts actual is T =
  assertNode.deepStrictEqual;
export const assertNotEquals = assertNode.notDeepStrictEqual;
export const assertMatch = (actual: string, expected: RegExp, message?: string): void =>
  assertNode.match(actual, expected, message);

/** Asserts that `fn` rejects, optionally with a message matching `pattern`; returns the error. */
export async function assertRejects(fn: () => Promise<unknown>, pattern?: RegExp): Promise<Error> {
  try {
    await fn();
  } catch (error) {
    if (pattern) assertMatch((error as Error).message, pattern);
    return error as Error;
  }
  throw new assertNode.AssertionError({ message: "expected the promise to reject" });
}

/** Asserts that `fn` throws, optionally with a message matching `pattern`. */
export const assertThrows = (fn: () => unknown, pattern?: RegExp): void =>
  pattern ? assertNode.throws(fn, pattern) : assertNode.throws(fn);
