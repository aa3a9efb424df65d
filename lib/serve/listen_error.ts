/** Where a listener was asked to listen, and the settings that change it, for `listenFailure()`. */
export interface ListenTarget {
  /** Who is speaking, e.g. `storectl server`. */
  readonly program: string;
  readonly hostname: string;
  readonly port: number;
  /** How to choose another port, e.g. `set PORT` or `choose another --cloud-port`. */
  readonly portFix: string;
  /** How to choose another address, e.g. `set HOST`; the port's fix when there is none. */
  readonly hostFix?: string;
}

/**
 * Why a listener could not start, as one line that names the address and the fix. Deno
 * (an `AddrInUse` error) and Node (`listen EADDRINUSE`) both set the error's `code`.
 *
 * @example
 * ```ts
 * import { listenFailure } from "./listen_error.ts";
 * const error = Object.assign(new Error("Address in use"), { code: "EADDRINUSE" });
 * listenFailure(error, { program: "storectl server", hostname: "127.0.0.1", port: 8080, portFix: "set PORT" });
 * // storectl server cannot listen on 127.0.0.1:8080: the address is already in use; stop the other process or
 * // set PORT (0 picks a free port)
 * ```
 */
export function listenFailure(error: unknown, target: ListenTarget): string {
  const host = target.hostname.includes(":") ? `[${target.hostname}]` : target.hostname;
  const prefix = `${target.program} cannot listen on ${host}:${target.port}`;
  switch ((error as { code?: unknown })?.code) {
    case "EADDRINUSE":
      return `${prefix}: the address is already in use; stop the other process or ${target.portFix} (0 picks a free port)`;
    case "EACCES":
      return `${prefix}: permission denied (ports below 1024 need privileges); ${target.portFix}`;
    case "EADDRNOTAVAIL":
      return `${prefix}: the address is not one of this machine's; ${target.hostFix ?? target.portFix}`;
    default:
      return `${prefix}: ${(error as Error)?.message ?? String(error)}`;
  }
}
