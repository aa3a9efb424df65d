import { StoreCtlError } from "../errors/mod.ts";

/** Reads secrets from the operating system's credential store. */
export interface Keyring {
  get(name: string): Promise<string | undefined>;
  set(name: string, secret: string): Promise<void>;
  delete(name: string): Promise<void>;
}

const SERVICE = "storectl";

/**
 * The system keyring through `@napi-rs/keyring`, loaded only when a `keyring:` value is used
 * (it is a native addon). Failures say the keyring is unavailable and why.
 */
export function systemKeyring(): Keyring {
  const entry = async (name: string) => {
    try {
      const { Entry } = await import("@napi-rs/keyring");
      return new Entry(SERVICE, name);
    } catch (error) {
      throw unavailable(error);
    }
  };
  const call = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (error) {
      throw unavailable(error);
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

function unavailable(cause: unknown): StoreCtlError {
  return new StoreCtlError("config", `The system keyring is not available: ${(cause as Error).message}`, {
    cause,
    tips: ["On Linux a Secret Service (e.g. gnome-keyring) must be running and unlocked"],
  });
}
