// Records are loose JSON objects: the emulator hands them back as the APIs do, with more
// fields than the clients read.
// deno-lint-ignore no-explicit-any
export type Json = Record<string, any>;

/** Names the fixtures give databases. */
export const NAMES = ["orders", "sessions", "catalog", "leaderboard", "inventory", "cache", "events", "profiles"];

/** When the fixtures' records were created. */
export const FIXTURE_TIME = "2026-01-01T00:00:00Z";
