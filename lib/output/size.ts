/**
 * Memory sizes as people write them: SI units are powers of 1000 (`kB`/`KB`, `MB`, `GB`, `TB`),
 * IEC units powers of 1024 (`KiB`, `MiB`, `GiB`, `TiB`); a bare number is bytes. Units are read
 * without regard to case (`1gib`), since no memory size is counted in bits.
 */
const UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
};

/** The units `parseSize` accepts, for messages and help. */
export const SIZE_UNITS = "B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024)";

/**
 * Parses a size into a whole number of bytes, or throws a `RangeError` saying what it must be
 * (its message starts with "must", to follow the name of the flag that was given it).
 *
 * @example
 * ```ts
 * import { parseSize } from "./size.ts";
 * parseSize("1GiB"); // 1073741824
 * parseSize("1.5GB"); // 1500000000
 * parseSize("512 MB"); // 512000000
 * parseSize("1048576"); // 1048576
 * ```
 */
export function parseSize(input: string): number {
  const match = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-z]*)\s*$/i.exec(input);
  if (!match) throw new RangeError(`must be a size such as 512MB, 1GiB, 1.5GB or a number of bytes; got '${input}'`);
  const [, number, unit] = match;
  const factor = UNITS[(unit || "b").toLowerCase()];
  if (factor === undefined) throw new RangeError(`must have a unit among ${SIZE_UNITS}; got '${input}'`);
  // Decimal digits times the factor, exactly: 1.1GB is 1100000000, not 1100000000.0000002.
  const [whole, fraction = ""] = number.split(".");
  const bytes = Number(whole) * factor + Math.round(Number(`0.${fraction || "0"}`) * factor * 1e6) / 1e6;
  if (!Number.isInteger(bytes)) {
    throw new RangeError(
      unit
        ? `must be a whole number of bytes; '${input}' is ${bytes} bytes`
        : `must be a whole number of bytes without a unit: add one, e.g. '${number}GB' or '${number}GiB'`,
    );
  }
  if (bytes <= 0) throw new RangeError(`must be more than 0 bytes; got '${input}'`);
  if (!Number.isSafeInteger(bytes)) throw new RangeError(`must be under 8 PiB; got '${input}'`);
  return bytes;
}

/**
 * A size for people, in IEC units (memory is sized in powers of 1024): one decimal at most, none when
 * it is zero.
 *
 * @example
 * ```ts
 * import { formatSize } from "./size.ts";
 * formatSize(1073741824); // "1 GiB"
 * formatSize(1610612736); // "1.5 GiB"
 * formatSize(1500000000); // "1.4 GiB"
 * formatSize(512); // "512 B"
 * ```
 */
export function formatSize(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number(value.toFixed(Math.abs(value) >= 100 ? 0 : 1))} ${units[unit]}`;
}
