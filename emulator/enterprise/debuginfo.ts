import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type Gzip, type PackageScope, packageStream } from "../debuginfo/package.ts";
import type { EnterpriseData } from "./fixture.ts";
import { parseId } from "../requests.ts";

interface DebuginfoOptions {
  readonly seed: number;
  readonly softwareVersion: string;
  readonly debuginfoMb: number;
  readonly data: () => EnterpriseData;
  readonly fail: (c: Context, status: ContentfulStatusCode, message: string) => Response;
  readonly gzip?: Gzip;
}

/** Whether `version` (e.g. `7.2.4`) is at least `major.minor`. */
export function versionAtLeast(version: string, major: number, minor: number): boolean {
  const [a = 0, b = 0] = version.split(".").map((part) => parseInt(part, 10) || 0);
  return a > major || (a === major && b >= minor);
}

/**
 * Debug-info downloads, mounted under `/v1`: the old family (`/debuginfo/...`, every version)
 * and the new one (`/cluster/debuginfo`, `/bdbs/{uid}/debuginfo`, `/nodes/.../debuginfo`), which
 * answers 404 below server 7.4 as real clusters do.
 */
export function debuginfoRoutes(options: DebuginfoOptions): Hono {
  const app = new Hono();
  const newApi = versionAtLeast(options.softwareVersion, 7, 4);

  const send = (c: Context, scope: PackageScope, isNew: boolean) => {
    if (isNew && !newApi) {
      return options.fail(
        c,
        404,
        `${c.req.path} requires server 7.4 or later; this cluster runs ${options.softwareVersion}`,
      );
    }
    const data = options.data();
    if (scope.kind === "node" && !data.nodes.has(scope.uid)) {
      return options.fail(c, 404, `node '${scope.uid}' does not exist`);
    }
    if (scope.kind === "bdb" && !data.bdbs.has(scope.uid)) {
      return options.fail(c, 404, `database '${scope.uid}' does not exist`);
    }
    const body = packageStream({
      seed: options.seed,
      sizeMb: options.debuginfoMb,
      scope,
      cluster: { name: data.cluster.name, softwareVersion: options.softwareVersion },
      nodes: [...data.nodes.values()].map((n) => ({ uid: n.uid, addr: n.addr })),
      bdbs: [...data.bdbs.values()].map((b) => ({ uid: b.uid, name: b.name })),
      gzip: options.gzip,
    });
    const name = scope.kind === "node" || scope.kind === "bdb" ? `${scope.kind}-${scope.uid}` : scope.kind;
    return c.body(body, 200, {
      "content-type": "application/x-gzip",
      "content-disposition": `attachment; filename="debuginfo-${name}.tar.gz"`,
    });
  };
  /** Resolves `:uid`, answering 404 for an id of the wrong format. */
  const withUid = (kind: "node" | "bdb", isNew: boolean) => (c: Context) => {
    const uid = parseId(c.req.param("uid") ?? "");
    return uid === undefined
      ? options.fail(c, 404, `${kind === "bdb" ? "database" : "node"} '${c.req.param("uid")}' does not exist`)
      : send(c, { kind, uid }, isNew);
  };

  app.get("/debuginfo/all", (c) => send(c, { kind: "cluster" }, false));
  app.get("/debuginfo/all/bdb/:uid", withUid("bdb", false));
  app.get("/debuginfo/node", (c) => send(c, { kind: "nodes" }, false));
  app.get("/debuginfo/node/:uid", withUid("node", false));
  app.get("/cluster/debuginfo", (c) => send(c, { kind: "cluster" }, true));
  app.get("/bdbs/:uid/debuginfo", withUid("bdb", true));
  app.get("/nodes/debuginfo", (c) => send(c, { kind: "nodes" }, true));
  app.get("/nodes/:uid/debuginfo", withUid("node", true));
  return app;
}
