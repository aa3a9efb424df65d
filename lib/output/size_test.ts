import { assertEquals, assertMatch } from "../../testing/assert.ts";
import { formatSize, parseSize } from "./size.ts";

Deno.test("parseSize() reads SI and IEC units and bare bytes", () => {
  const cases: [string, number][] = [
    ["512MB", 512_000_000],
    ["1GiB", 1024 ** 3],
    ["1.5GB", 1_500_000_000],
    ["1.1GB", 1_100_000_000],
    ["1048576", 1_048_576],
    ["2 kb", 2000],
    ["4KiB", 4096],
    ["1gib", 1024 ** 3],
    ["0.5KiB", 512],
    ["1TB", 1e12],
    ["100B", 100],
  ];
  for (const [input, bytes] of cases) assertEquals(parseSize(input), bytes, input);
});

/** The message of the RangeError `input` is rejected with. */
function rejection(input: string): string {
  try {
    parseSize(input);
  } catch (error) {
    assertEquals(error instanceof RangeError, true);
    return (error as Error).message;
  }
  throw new Error(`parseSize('${input}') was accepted`);
}

Deno.test("parseSize() rejects unknown units, fractions of a byte, zero and nonsense", () => {
  assertMatch(rejection("1GX"), /must have a unit among B, KB, .*KiB.*; got '1GX'/);
  assertMatch(rejection("1G"), /must have a unit among/);
  assertMatch(rejection("1.5"), /must be a whole number of bytes without a unit: add one, e.g. '1\.5GB' or '1\.5GiB'/);
  assertMatch(rejection("1.5B"), /must be a whole number of bytes; '1\.5B' is 1\.5 bytes/);
  assertMatch(rejection("0"), /must be more than 0 bytes/);
  assertMatch(rejection("-1GB"), /must be a size such as 512MB/);
  assertMatch(rejection("lots"), /must be a size/);
  assertMatch(rejection("99999999TiB"), /must be under 8 PiB/);
});

Deno.test("formatSize() prints IEC units with at most one decimal", () => {
  assertEquals(formatSize(1024 ** 3), "1 GiB");
  assertEquals(formatSize(1.5 * 1024 ** 3), "1.5 GiB");
  assertEquals(formatSize(1_500_000_000), "1.4 GiB");
  assertEquals(formatSize(512), "512 B");
  assertEquals(formatSize(300 * 1024 ** 2 + 5), "300 MiB");
  assertEquals(formatSize(0), "0 B");
});
