import { StoreCtlError } from "../errors/mod.ts";
import type { HttpResponse } from "../http/mod.ts";
import type { EnterpriseClient } from "./client.ts";

/** What a support package covers. */
export type PackageTarget =
  | { readonly kind: "cluster" }
  | { readonly kind: "database"; readonly uid: number }
  | { readonly kind: "node"; readonly uid: number }
  | { readonly kind: "nodes" };

/** The two route families: `old` (`/v1/debuginfo/…`, every version) and `new` (7.4 and later). */
export type RouteFamily = "old" | "new";

/**
 * The path of a package in a route family.
 *
 * @example
 * ```ts
 * import { debuginfoPath } from "./debuginfo.ts";
 * debuginfoPath({ kind: "database", uid: 3 }, "old"); // "/v1/debuginfo/all/bdb/3"
 * debuginfoPath({ kind: "database", uid: 3 }, "new"); // "/v1/bdbs/3/debuginfo"
 * ```
 */
export function debuginfoPath(target: PackageTarget, family: RouteFamily): string {
  switch (target.kind) {
    case "cluster":
      return family === "old" ? "/v1/debuginfo/all" : "/v1/cluster/debuginfo";
    case "database":
      return family === "old" ? `/v1/debuginfo/all/bdb/${target.uid}` : `/v1/bdbs/${target.uid}/debuginfo`;
    case "node":
      return family === "old" ? `/v1/debuginfo/node/${target.uid}` : `/v1/nodes/${target.uid}/debuginfo`;
    case "nodes":
      return family === "old" ? "/v1/debuginfo/node" : "/v1/nodes/debuginfo";
  }
}

/** Whether a cluster version (`7.4.2`) serves the new routes (7.4 and later). */
export function servesNewRoutes(version: string | undefined): boolean {
  const [major = 0, minor = 0] = (version ?? "").split(".").map((part) => parseInt(part, 10) || 0);
  return major > 7 || (major === 7 && minor >= 4);
}

/** A started package download. */
export interface DebuginfoDownload {
  readonly response: HttpResponse;
  /** The body, failing when it ends short of its `Content-Length` (a dropped connection). */
  readonly body: ReadableStream<Uint8Array<ArrayBuffer>>;
  /** The size the server announced, if it did. */
  readonly length?: number;
  /** The family that answered. */
  readonly family: RouteFamily;
  readonly path: string;
}

/**
 * Starts downloading a package from `family`; on a 404 tries the other family once (an old
 * cluster lacks the new routes, a future one may drop the old), telling `onFallback`. When both
 * answer 404 the error carries both answers. A cluster builds the package before it sends it:
 * `firstByteTimeoutMs` is how long it may take (see `ApiRequest.firstByteTimeoutMs`).
 */
export async function downloadDebuginfo(
  client: EnterpriseClient,
  target: PackageTarget,
  options: {
    family: RouteFamily;
    signal?: AbortSignal;
    firstByteTimeoutMs?: number;
    onFallback?: (from: string, to: string) => void;
  },
): Promise<DebuginfoDownload> {
  const get = async (family: RouteFamily): Promise<DebuginfoDownload> => {
    const path = debuginfoPath(target, family);
    const response = await client.http.send({
      method: "GET",
      path,
      headers: { accept: "application/x-gzip, application/gzip, application/octet-stream" },
      signal: options.signal,
      firstByteTimeoutMs: options.firstByteTimeoutMs,
    });
    // A transport that decodes a Content-Encoding delivers other bytes than the header counts.
    const encoded = (response.headers.get("content-encoding") ?? "identity") !== "identity";
    const length = encoded ? undefined : Number(response.headers.get("content-length")) || undefined;
    const body = (response.body ?? new ReadableStream()).pipeThrough(exactLength(length, path));
    return { response, body, length, family, path };
  };
  try {
    return await get(options.family);
  } catch (first) {
    if (!(first instanceof StoreCtlError) || first.code !== "not_found") throw first;
    const other: RouteFamily = options.family === "old" ? "new" : "old";
    options.onFallback?.(debuginfoPath(target, options.family), debuginfoPath(target, other));
    try {
      return await get(other);
    } catch (second) {
      if (!(second instanceof StoreCtlError) || second.code !== "not_found") throw second;
      throw new StoreCtlError("not_found", `${first.message} (and ${second.message})`, {
        status: 404,
        cause: first,
        reason: "debuginfo_not_found",
      });
    }
  }
}

/**
 * Passes bytes through and fails at the end when fewer (or more) came than `expected`: a
 * connection closed early must not pass for a complete package.
 */
export function exactLength(
  expected: number | undefined,
  what: string,
): TransformStream<Uint8Array, Uint8Array<ArrayBuffer>> {
  let received = 0;
  return new TransformStream<Uint8Array, Uint8Array<ArrayBuffer>>({
    transform(chunk, controller) {
      received += chunk.length;
      controller.enqueue(chunk as Uint8Array<ArrayBuffer>);
    },
    flush() {
      if (expected !== undefined && received !== expected) {
        throw new StoreCtlError(
          "network",
          `The download of ${what} ended after ${received} of ${expected} bytes: the connection broke`,
          { tips: ["Try again; nothing was saved"] },
        );
      }
    },
  });
}
