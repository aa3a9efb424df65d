import { assertEquals, assertRejects } from "../../testing/assert.ts";
import type { StoreCtlError } from "../errors/mod.ts";
import { systemKeyring } from "./keyring.ts";

const SECRET_SERVICE = "On Linux a Secret Service (e.g. gnome-keyring) must be running and unlocked";

Deno.test("systemKeyring(): without the addon (a single binary) the error says so, with no Secret Service tip", async () => {
  const missing = new Error("@napi-rs/keyring is not part of this binary (a native addon): put a node_modules …");
  const keyring = systemKeyring(() => Promise.reject(missing));
  const error = await assertRejects(() => keyring.get("x")) as StoreCtlError;
  assertEquals(error.code, "config");
  assertEquals(error.message, `The system keyring is not available: ${missing.message}`);
  assertEquals(error.tips, []);
});

Deno.test("systemKeyring(): a keyring that fails to answer gets the Secret Service tip", async () => {
  class Entry {
    getPassword(): string | null {
      throw new Error("Platform secure storage failure: DBus error: no such service");
    }
  }
  const keyring = systemKeyring(() => Promise.resolve({ Entry } as unknown as typeof import("@napi-rs/keyring")));
  const error = await assertRejects(() => keyring.get("x")) as StoreCtlError;
  assertEquals(error.tips, [SECRET_SERVICE]);
});
