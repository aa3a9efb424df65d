/**
 * Stores a secret in the OS keyring through storectl's own adapter:
 * `deno run -A testing/keyring_set.ts <name> <secret>`. Used inside a private D-Bus session.
 *
 * @module
 */
import { systemKeyring } from "../lib/config/mod.ts";

await systemKeyring().set(Deno.args[0], Deno.args[1]);
