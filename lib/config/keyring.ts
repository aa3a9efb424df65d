import { StoreCtlError } from "../errors/mod.ts";

/** Reads secrets from the operating system's credential store. */
export interface Keyring {
  get(name: string): Promise<string | undefined>;
  set(name: string, secret: string): Promise<void>;
  delete(name: string): Promise<void>;
}

const SERVICE = "storectl";

/** Loads the keyring addon: `import("@napi-rs/keyring")`, or a stand-in in tests. */
export type KeyringAddonLoader = () => Promise<typeof import("@napi-rs/keyring")>;

/**
 * The system keyring through `@napi-rs/keyring`, loaded only when a `keyring:` value is used
 * (it is a native addon). Failures say the keyring is unavailable and why; only a keyring that
 * fails to answer gets the tip about Linux's Secret Service: an addon that did not load (the
 * single binary has none beside it) says what to do itself.
 */
export function systemKeyring(load: KeyringAddonLoader = () => import("@napi-rs/keyring")): Keyring {
  const entry = async (name: string) => {
    try {
      const { Entry } = await load();
      return new Entry(SERVICE, name);
    } catch (error) {
      throw unavailable(error, []);
    }
  };
  const call = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (error) {
      throw unavailable(error, ["On Linux a Secret Service (e.g. gnome-keyring) must be running and unlocked"]);
    }
  };
  return {
    async get(name) {
      const e = await entry(name);
      return call(() => e.getPassword() ?? undefined);
    },
    async set(name, secret) {
      const e = await entry(name);
      call(() => e.setPassword(secret));
    },
    async delete(name) {
      const e = await entry(name);
      call(() => e.deletePassword());
    },
  };
}

function unavailable(cause: unknown, tips: string[]): StoreCtlError {
  return new StoreCtlError("config", `The system keyring is not available: ${(cause as Error).message}`, {
    cause,
    tips,
  });
}
