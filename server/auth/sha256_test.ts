import { assertEquals } from "../../testing/assert.ts";
import { sha256 } from "./sha256.ts";

Deno.test("sha256() matches Web Crypto at every padding edge and beyond", async () => {
  const lengths = [0, 1, 3, 31, 32, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 70_000];
  for (const length of lengths) {
    const data = crypto.getRandomValues(new Uint8Array(Math.min(length, 65_536)));
    const input = length > 65_536 ? new Uint8Array([...data, ...data.subarray(0, length - 65_536)]) : data;
    const expected = new Uint8Array(await crypto.subtle.digest("SHA-256", input));
    assertEquals(sha256(input), expected, `${length} bytes`);
  }
  const abc = [...sha256(new TextEncoder().encode("abc"))].map((b) => b.toString(16).padStart(2, "0")).join("");
  assertEquals(abc, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"); // FIPS 180-4's example
});
