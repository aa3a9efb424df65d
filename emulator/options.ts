import { buildApplication, buildCommand, run, type StricliProcess } from "@stricli/core";
import { DEFAULT_OPTIONS, type EmulatorOptions } from "./mod.ts";
import { ALL_QUIRKS, parseQuirks, type Quirk, QUIRKS } from "./quirks.ts";

/** Emulator settings plus where and how to listen. */
export interface EmulatorLaunch extends EmulatorOptions {
  readonly cloudPort: number;
  readonly enterprisePort: number;
  readonly tls: boolean;
  readonly caOut?: string;
}

const integer = (min: number, max: number) => (value: string): number => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new Error(`expected a whole number from ${min} to ${max}, got '${value}'`);
  }
  return n;
};

const number = (brief: string, min: number, max: number, fallback: number) => ({
  kind: "parsed" as const,
  brief,
  parse: integer(min, max),
  default: String(fallback),
  placeholder: "n",
});
const text = (brief: string, fallback?: string) => ({
  kind: "parsed" as const,
  brief,
  parse: String,
  ...(fallback === undefined ? { optional: true as const } : { default: fallback }),
  placeholder: "value",
});

/** Where the parser writes help and errors. */
export interface ParserOutput {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/**
 * Parses the emulator's command line. Resolves with the settings, or with the exit code when
 * there is nothing to start: 0 after `--help`, 2 after a mistake (already reported on stderr).
 */
export async function parseEmulatorArgs(
  argv: readonly string[],
  output: ParserOutput,
): Promise<EmulatorLaunch | { readonly exitCode: number }> {
  const d = DEFAULT_OPTIONS;
  let launch: EmulatorLaunch | undefined;
  let problem: string | undefined;
  const command = buildCommand({
    func: (
      { realApi, quirks, ...flags }:
        & Omit<EmulatorLaunch, "quirks">
        & { realApi: boolean; quirks?: Set<Quirk> },
    ) => {
      if (realApi && quirks) {
        problem = "--real-api already turns every quirk on; give --quirks without it to pick some";
      } else if (flags.caOut && !flags.tls) {
        problem = "--ca-out needs --tls (without it the enterprise side has no certificate)";
      } else if (!/^\d+\.\d+/.test(flags.softwareVersion)) {
        problem = `--software-version must look like 7.2.4, got '${flags.softwareVersion}'`;
      } else launch = { ...d, ...flags, quirks: realApi ? ALL_QUIRKS : quirks ?? d.quirks };
    },
    parameters: {
      flags: {
        cloudPort: number("cloud API port (0 picks a free one)", 0, 65535, 8081),
        enterprisePort: number("enterprise API port (0 picks a free one)", 0, 65535, 9443),
        tls: {
          kind: "boolean",
          brief: "serve the enterprise API over HTTPS with a self-signed certificate made at start",
          default: false,
        },
        caOut: text("with --tls: write the certificate (PEM) here so clients can trust it"),
        taskDelayMs: number("time a cloud task takes to complete", 0, 86_400_000, d.taskDelayMs),
        debuginfoMb: number("uncompressed size of each debug-info package", 0, 65_536, d.debuginfoMb),
        seed: number("seed of the fixture and package contents", 0, 2 ** 31 - 1, d.seed),
        softwareVersion: text("enterprise version (7.4 or later enables the new debuginfo API)", d.softwareVersion),
        rateLimitPerMinute: number("cloud requests per minute before 429 (0: no limit)", 0, 1e9, d.rateLimitPerMinute),
        bodyLimitBytes: number("larger request bodies get 413", 1, 1024 ** 3, d.bodyLimitBytes),
        realApi: {
          kind: "boolean",
          brief: "reproduce every behaviour of the real APIs that clients must survive (all the quirks)",
          default: false,
        },
        quirks: {
          kind: "parsed",
          brief: `reproduce some of them, comma-separated: ${Object.keys(QUIRKS).join(", ")}`,
          parse: parseQuirks,
          optional: true,
          placeholder: "list",
        },
        apiKey: text("cloud API key", d.apiKey),
        apiSecret: text("cloud API secret", d.apiSecret),
        username: text("enterprise username", d.username),
        password: text("enterprise password", d.password),
      },
    },
    docs: { brief: "Local emulator of the cloud and enterprise management APIs (binds 127.0.0.1 only)" },
    // deno-lint-ignore no-explicit-any
  } as any);
  const app = buildApplication(command, { name: "emulator", scanner: { caseStyle: "allow-kebab-for-camel" } });
  const process: StricliProcess = {
    stdout: { write: output.stdout },
    stderr: { write: output.stderr },
  };
  await run(app, argv, { process });
  if (problem) output.stderr(`error: ${problem}\n`);
  if (launch && !problem) return launch;
  const mistaken = problem !== undefined || Boolean(process.exitCode);
  if (mistaken) output.stderr("Run with --help to see the flags.\n");
  return { exitCode: mistaken ? 2 : 0 };
}
