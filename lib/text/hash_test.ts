import { assertEquals } from "../../testing/assert.ts";
import { digestHex, hex } from "./hash.ts";

Deno.test("hex() and digestHex() match the known answers", async () => {
  assertEquals(hex(new Uint8Array([0, 1, 171, 255])), "0001abff");
  assertEquals(await digestHex("SHA-256", ""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assertEquals(await digestHex("SHA-1", "abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  assertEquals(await digestHex("SHA-256", new TextEncoder().encode("abc")), await digestHex("SHA-256", "abc"));
});
