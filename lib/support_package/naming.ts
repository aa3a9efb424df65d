import type { PackageTarget } from "../enterprise/mod.ts";

/**
 * `YYYYMMDDTHHMMSS` in UTC, the specification's timestamp of default file names.
 *
 * @example
 * ```ts
 * import { packageTimestamp } from "./naming.ts";
 * packageTimestamp(new Date(Date.UTC(2026, 0, 31, 8, 5, 9))); // "20260131T080509"
 * ```
 */
export function packageTimestamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "");
}

/**
 * The specification's default file name of a package.
 *
 * @example
 * ```ts
 * import { defaultPackageName } from "./naming.ts";
 * const at = new Date(Date.UTC(2026, 0, 31, 8, 5, 9));
 * defaultPackageName({ kind: "database", uid: 3 }, at); // "support-package-database-3-20260131T080509.tar.gz"
 * defaultPackageName({ kind: "nodes" }, at); // "support-package-nodes-20260131T080509.tar.gz"
 * ```
 */
export function defaultPackageName(target: PackageTarget, date: Date): string {
  const stamp = packageTimestamp(date);
  switch (target.kind) {
    case "cluster":
    case "nodes":
      return `support-package-${target.kind}-${stamp}.tar.gz`;
    case "database":
    case "node":
      return `support-package-${target.kind}-${target.uid}-${stamp}.tar.gz`;
  }
}

/** The specification's `package_type` of a target (`nodes` for all nodes). */
export function packageType(target: PackageTarget): string {
  return target.kind;
}
