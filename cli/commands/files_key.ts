import { type ConfigDocument, FILES_KEYRING_ENTRY, requireProfile, resolveFilesKey } from "../../lib/config/mod.ts";
import { mask, StoreCtlError } from "../../lib/errors/mod.ts";
import { arg, flag } from "../framework/params.ts";
import { command, group } from "../framework/spec.ts";

/** The keyring entry of a location: the global key's, or one per profile. */
function entryName(profile: string | undefined): string {
  return profile === undefined ? FILES_KEYRING_ENTRY : `${FILES_KEYRING_ENTRY}:${profile}`;
}

/** Where a key is stored in the config, as people read it. */
function where(profile: string | undefined): string {
  return profile === undefined ? "the global files_api_key" : `profile '${profile}' files_api_key`;
}

/** The config with `value` as the files key of `profile` (or the global one), or without it. */
function withKey(doc: ConfigDocument, profile: string | undefined, value: string | undefined): ConfigDocument {
  if (profile !== undefined) {
    const record = { ...requireProfile(doc, profile) };
    if (value === undefined) delete record.files_api_key;
    else record.files_api_key = value;
    return { ...doc, profiles: { ...doc.profiles, [profile]: record } };
  }
  const copy = { ...doc };
  delete copy.files_api_key;
  return value === undefined ? copy : { files_api_key: value, ...copy };
}

/** The profile to store in: the global `--profile`/`-p` (not `STORE_PROFILE`), else the global key. */
function checkPlace(flags: { global: boolean }, profile: string | undefined): string | undefined {
  if (flags.global && profile !== undefined) {
    throw new StoreCtlError("usage", "Give --global or --profile <name>, not both");
  }
  return profile;
}

const set = command({
  summary: "store the upload key of support packages",
  description: `Store the file-transfer API key that --upload uses: in the config file's global
files_api_key (default, or --global) or in a profile's (--profile <name>). With --use-keyring the
key goes into the system keyring and the file holds only keyring:<entry>. Give - as the key to
read it on standard input, keeping it out of the shell history.`,
  args: [arg.string("key", "the API key, or - to read it on standard input")],
  flags: {
    useKeyring: flag.boolean("keep the key in the system keyring; the file gets keyring:<entry>"),
    global: flag.boolean("store it as the global files_api_key (the default)"),
  },
  examples: [
    'ctl files-key set "$FILES_KEY" --use-keyring',
    "ctl files-key set - --profile prod < key.txt",
  ],
  async run({ args: [given], flags }, f) {
    const profile = checkPlace(flags, f.globals.profile);
    const key = given === "-" ? new TextDecoder().decode(await f.ctx.stdin.readAll()).trim() : given;
    if (key === "") throw new StoreCtlError("usage", "The key is empty");
    let value = key;
    if (flags.useKeyring) {
      const entry = entryName(profile);
      await f.ctx.keyring.set(entry, key);
      value = `keyring:${entry}`;
    }
    const path = await f.updateConfig((doc) => withKey(doc, profile, value));
    f.ctx.stderr.write(
      `Saved the upload key (${mask(key)}) as ${where(profile)} in ${path}` +
        (flags.useKeyring ? `, the secret in the system keyring (entry '${value.slice(8)}')\n` : "\n"),
    );
  },
});

const get = command({
  summary: "show the upload key, masked, and its source",
  description: `Show the upload key --upload would use, masked, and its source. The order:
STORE_ENTERPRISE_FILES_API_KEY, the enterprise profile's files_api_key, the global files_api_key,
the system keyring's '${FILES_KEYRING_ENTRY}' entry, STORE_FILES_API_KEY.`,
  output: { columns: [{ header: "KEY", value: "key" }, { header: "SOURCE", value: "source" }] },
  examples: ["ctl files-key get", "ctl files-key get -o json"],
  async run(_input, f) {
    const { doc } = await f.config();
    const found = await resolveFilesKey({ doc, env: f.ctx.env, profile: f.globals.profile, keyring: f.ctx.keyring });
    if (!found) {
      throw new StoreCtlError("not_found", "No upload key is set", {
        tips: ["Store one with: ctl files-key set <key> [--use-keyring]", "Or set STORE_ENTERPRISE_FILES_API_KEY"],
      });
    }
    return { key: mask(found.key), source: found.source };
  },
});

const remove = command({
  summary: "remove the stored upload key",
  description: `Remove the global files_api_key (or --profile <name>'s) from the config file. With
--keyring the keyring entry it refers to (or the default '${FILES_KEYRING_ENTRY}') is deleted too.
Environment variables are yours to unset.`,
  flags: {
    keyring: flag.boolean("also delete the key from the system keyring"),
    global: flag.boolean("remove the global files_api_key (the default)"),
  },
  examples: ["ctl files-key remove", "ctl files-key remove --keyring"],
  async run({ flags }, f) {
    const profile = checkPlace(flags, f.globals.profile);
    let stored: unknown;
    const path = await f.updateConfig((doc) => {
      stored = profile === undefined ? doc.files_api_key : requireProfile(doc, profile).files_api_key;
      return withKey(doc, profile, undefined);
    });
    const reference = typeof stored === "string" && stored.startsWith("keyring:") ? stored.slice(8) : undefined;
    const lines = [stored === undefined ? `No ${where(profile)} in ${path}` : `Removed ${where(profile)} from ${path}`];
    if (flags.keyring) {
      const entry = reference ?? entryName(profile);
      const had = await f.ctx.keyring.get(entry);
      if (had !== undefined) await f.ctx.keyring.delete(entry);
      lines.push(had === undefined ? `No keyring entry '${entry}'` : `Deleted keyring entry '${entry}'`);
    } else if (reference) {
      lines.push(`The keyring entry '${reference}' stays; delete it with --keyring`);
    }
    f.ctx.stderr.write(lines.map((l) => `${l}\n`).join(""));
  },
});

/** `ctl files-key set|get|remove`: the upload key of support packages. */
export default group("manage the upload key of support packages", { set, get, remove });
