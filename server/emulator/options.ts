import { Command, InvalidArgumentError } from "@commander-js/extra-typings";
import { DEFAULT_OPTIONS, type EmulatorOptions } from "./mod.ts";

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
    throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}, got '${value}'`);
  }
  return n;
};

/**
 * Parses the emulator's command line. Throws commander's `CommanderError` (with `exitCode`)
 * on bad input or for `--help`; the message has already been written to stderr then.
 */
export function parseEmulatorArgs(argv: readonly string[]): EmulatorLaunch {
  const d = DEFAULT_OPTIONS;
  const command = new Command("emulator")
    .description("Local emulator of the cloud and enterprise management APIs (binds 127.0.0.1 only)")
    .option("--cloud-port <port>", "cloud API port (0 picks a free one)", integer(0, 65535), 8081)
    .option("--enterprise-port <port>", "enterprise API port (0 picks a free one)", integer(0, 65535), 9443)
    .option("--tls", "serve the enterprise API over HTTPS with a self-signed certificate made at start", false)
    .option("--ca-out <file>", "with --tls: write the certificate (PEM) here so clients can trust it")
    .option("--task-delay-ms <ms>", "time a cloud task takes to complete", integer(0, 86_400_000), d.taskDelayMs)
    .option("--debuginfo-mb <mb>", "uncompressed size of each debug-info package", integer(0, 65_536), d.debuginfoMb)
    .option("--seed <n>", "seed of the fixture and package contents", integer(0, 2 ** 31 - 1), d.seed)
    .option(
      "--software-version <version>",
      "enterprise version (7.4 or later enables the new debuginfo API)",
      d.softwareVersion,
    )
    .option(
      "--rate-limit-per-minute <n>",
      "cloud requests per minute before 429 (0: no limit)",
      integer(0, 1e9),
      d.rateLimitPerMinute,
    )
    .option("--api-key <key>", "cloud API key", d.apiKey)
    .option("--api-secret <secret>", "cloud API secret", d.apiSecret)
    .option("--username <user>", "enterprise username", d.username)
    .option("--password <password>", "enterprise password", d.password)
    .exitOverride()
    .parse(argv, { from: "user" });
  const o = command.opts();
  if (o.caOut && !o.tls) {
    command.error("error: --ca-out needs --tls (without it the enterprise side has no certificate)");
  }
  if (!/^\d+\.\d+/.test(o.softwareVersion)) {
    command.error(`error: --software-version must look like 7.2.4, got '${o.softwareVersion}'`);
  }
  return { ...d, ...o };
}
