/**
 * The config file's format version. A file says its version (`version = 1`); one without is
 * version 0, the format before versions. An older file is read as it is and migrated on the
 * first write, a copy of it kept beside it (`config.toml.v0.bak`); a newer one is refused, read
 * or write, so that an older ctl never misreads or rewrites what a newer one wrote.
 *
 * @module
 */
import { StoreCtlError } from "../errors/mod.ts";
import type { ConfigDocument } from "./document.ts";

/** The version this ctl writes. */
export const CONFIG_VERSION = 1;

/** Each version's change from the one before: `MIGRATIONS[n]` turns version n − 1 into n. */
const MIGRATIONS: Readonly<Record<number, (doc: ConfigDocument) => ConfigDocument>> = {
  // Version 1 only names its version: profiles, defaults and keys are as version 0 had them.
  1: (doc) => doc,
};

/**
 * The version of `doc` read from `path`; throws for a version this ctl cannot read (newer, or
 * not a whole number), naming the fix.
 *
 * @example
 * ```ts
 * configVersion({ profiles: {} }, "config.toml"); // 0
 * configVersion({ version: 1 }, "config.toml"); // 1
 * ```
 */
export function configVersion(doc: ConfigDocument, path: string): number {
  const version = doc.version ?? 0;
  const number = typeof version === "bigint" ? Number(version) : version;
  if (typeof number !== "number" || !Number.isInteger(number) || number < 0) {
    throw new StoreCtlError(
      "config",
      `${path}: version must be a whole number; got ${JSON.stringify(String(version))}`,
      {
        tips: [`ctl writes version = ${CONFIG_VERSION}; fix the line by hand`],
      },
    );
  }
  if (number > CONFIG_VERSION) {
    throw new StoreCtlError(
      "config",
      `${path} is a version ${number} config, written by a newer ctl; this ctl reads versions up to ${CONFIG_VERSION} ` +
        "and leaves the file as it is",
      {
        tips: [
          "Upgrade ctl (npm install -g storectl, or your package manager)",
          "Or point STORE_CONFIG_FILE elsewhere",
        ],
      },
    );
  }
  return number;
}

/** `doc` (of version `from`) in the current version, `version` first. */
export function migrateConfig(doc: ConfigDocument, from: number): ConfigDocument {
  let migrated = doc;
  for (let version = from + 1; version <= CONFIG_VERSION; version++) migrated = MIGRATIONS[version](migrated);
  const { version: _, ...rest } = migrated;
  return { version: CONFIG_VERSION, ...rest };
}
