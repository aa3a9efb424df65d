/**
 * A local, stateful emulator of the cloud and enterprise management APIs, so that `ctl` and
 * users' automation can be tried without an account or a cluster.
 *
 * @example
 * ```ts
 * import { createEmulator, DEFAULT_OPTIONS } from "./mod.ts";
 * const emulator = createEmulator({ ...DEFAULT_OPTIONS, taskDelayMs: 0 });
 * const res = await emulator.cloud.request("/v1/subscriptions", {
 *   headers: { "x-api-key": "demo-key", "x-api-secret-key": "demo-secret" },
 * });
 * ```
 *
 * @module
 */
import { Hono } from "hono";
import { bodyLimit } from "../lib/serve/mod.ts";
import { cloudErrorBody, cloudRoutes } from "./cloud/routes.ts";
import { enterpriseErrorBody, enterpriseRoutes } from "./enterprise/routes.ts";
import { type ErrorBody, faultMiddleware, FaultPlan, faultRoutes } from "./faults.ts";
import { filesRoutes, type StoredFile } from "./files.ts";
import type { Gzip } from "./debuginfo/package.ts";
import type { Quirk } from "./quirks.ts";

export { generateSelfSignedCertificate } from "./self_signed_cert.ts";
export { packageStream, planPackage } from "./debuginfo/package.ts";
export { FILES_API_KEY, type StoredFile } from "./files.ts";
export { ALL_QUIRKS, parseQuirks, type Quirk, QUIRKS } from "./quirks.ts";

/** Every setting of the emulator; the command-line options map onto these one to one. */
export interface EmulatorOptions {
  readonly seed: number;
  readonly taskDelayMs: number;
  readonly debuginfoMb: number;
  readonly softwareVersion: string;
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly username: string;
  readonly password: string;
  /** Cloud requests allowed per minute before 429; 0 disables the budget. */
  readonly rateLimitPerMinute: number;
  /** Request bodies over this size answer 413 (in the API's error format), unread. */
  readonly bodyLimitBytes: number;
  /** Behaviours of the real APIs to reproduce (see `QUIRKS`); none by default. */
  readonly quirks: ReadonlySet<Quirk>;
  /** The enterprise TLS certificate, if any, shown by `/v1/cluster/certificates`. */
  readonly certificate?: string;
  /** The clock; tests pass their own. */
  readonly now?: () => number;
  /** The runtime's gzip transform (see `Runtime.gzip`); default `CompressionStream`. */
  readonly gzip?: Gzip;
  /** Where log lines go: one per unexpected error (faults asked for are not errors). Default: stderr. */
  readonly log?: (line: string) => void;
  /** Adds the stack to those lines (`STORE_LOG=debug`). */
  readonly debug?: boolean;
}

export const DEFAULT_OPTIONS: EmulatorOptions = {
  seed: 1,
  taskDelayMs: 2000,
  debuginfoMb: 4,
  softwareVersion: "7.2.4",
  apiKey: "demo-key",
  apiSecret: "demo-secret",
  username: "admin@example.com",
  password: "demo-password",
  rateLimitPerMinute: 400,
  bodyLimitBytes: 1024 * 1024,
  quirks: new Set(),
};

/** The two emulated APIs, each a fetch handler, plus their fault plans. */
export interface Emulator {
  readonly cloud: Hono;
  readonly enterprise: Hono;
  readonly faults: { readonly cloud: FaultPlan; readonly enterprise: FaultPlan };
  /** Files uploaded to the file-transfer service (served under `/files` of the cloud side). */
  files(): StoredFile[];
  /** Restores the seeded fixture on both sides and clears queued faults. */
  reset(): void;
}

/** Builds both emulated APIs from `options`. */
export function createEmulator(options: EmulatorOptions): Emulator {
  const now = options.now ?? Date.now;
  const cloud = cloudRoutes({ ...options, now });
  const enterprise = enterpriseRoutes({ ...options, now });
  const faults = { cloud: new FaultPlan(), enterprise: new FaultPlan() };
  const files = filesRoutes();
  const reset = () => {
    files.reset();
    cloud.reset();
    enterprise.reset();
    faults.cloud.clear();
    faults.enterprise.clear();
  };
  const log = options.log ?? ((line: string) => console.error(line));
  const onError = (error: Error, request: string) => {
    const stack = options.debug && error.stack ? `\n${error.stack.split("\n").slice(1).join("\n")}` : "";
    log(`emulator: ${request} failed: ${error.message}${stack}`);
  };
  return {
    cloud: side(faults.cloud, cloudErrorBody, options.bodyLimitBytes, reset, onError)
      .route("/v1", cloud.app)
      .route("/files", files.app),
    enterprise: side(faults.enterprise, enterpriseErrorBody, options.bodyLimitBytes, reset, onError)
      .route("/", enterprise.app),
    faults,
    files: files.files,
    reset,
  };
}

function side(
  plan: FaultPlan,
  errorBody: ErrorBody,
  maxBytes: number,
  reset: () => void,
  onError: (error: Error, request: string) => void,
): Hono {
  const app = new Hono({ strict: false });
  app.use("*", faultMiddleware(plan, errorBody));
  const tooLarge = `The request body is over ${maxBytes} bytes; send a smaller one`;
  const limit = bodyLimit(maxBytes, (c) => c.json(errorBody(413, tooLarge, c.req.path), 413));
  // The file-transfer service takes parts of megabytes, which it hashes as they stream and never keeps.
  app.use("*", (c, next) => c.req.path.startsWith("/files/") ? next() : limit(c, next));
  app.route("/__emulator", faultRoutes(plan));
  app.post("/__emulator/reset", (c) => {
    reset();
    return c.body(null, 204);
  });
  app.notFound((c) => c.json(errorBody(404, `No endpoint ${c.req.method} ${c.req.path}`, c.req.path), 404));
  app.onError((error, c) => {
    onError(error, `${c.req.method} ${c.req.path}`);
    return c.json(errorBody(500, "Internal emulator error; see the emulator's log", c.req.path), 500);
  });
  return app;
}
