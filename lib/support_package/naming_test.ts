import { assertEquals, assertMatch } from "../../testing/assert.ts";
import { defaultPackageName, packageTimestamp } from "./naming.ts";
import { packageResult } from "./result.ts";

const AT = new Date(Date.UTC(2026, 0, 31, 8, 5, 9, 750));

Deno.test("defaultPackageName() follows the specification's table with a UTC YYYYMMDDTHHMMSS stamp", () => {
  assertEquals(packageTimestamp(AT), "20260131T080509");
  assertEquals(defaultPackageName({ kind: "cluster" }, AT), "support-package-cluster-20260131T080509.tar.gz");
  assertEquals(
    defaultPackageName({ kind: "database", uid: 3 }, AT),
    "support-package-database-3-20260131T080509.tar.gz",
  );
  assertEquals(defaultPackageName({ kind: "node", uid: 2 }, AT), "support-package-node-2-20260131T080509.tar.gz");
  assertEquals(defaultPackageName({ kind: "nodes" }, AT), "support-package-nodes-20260131T080509.tar.gz");
});

Deno.test("packageResult() has the specification's fields; success is false exactly with an error", () => {
  const ok = packageResult({
    packageType: "cluster",
    startedAt: AT,
    finishedMs: AT.getTime() + 12_600,
    filePath: "/tmp/p.tar.gz",
    fileSize: 3 * 1024 * 1024,
    clusterName: "c1",
    clusterVersion: "7.4.2",
    message: "Saved",
  });
  assertEquals(ok, {
    success: true,
    package_type: "cluster",
    file_path: "/tmp/p.tar.gz",
    file_size: 3145728,
    file_size_display: "3 MiB",
    elapsed_seconds: 13,
    cluster_name: "c1",
    cluster_version: "7.4.2",
    message: "Saved",
    timestamp: "2026-01-31T08:05:09Z",
  });
  const failed = packageResult({
    packageType: "node",
    startedAt: AT,
    finishedMs: AT.getTime(),
    message: "x",
    error: "boom",
  });
  assertEquals([failed.success, failed.error, "file_path" in failed], [false, "boom", false]);
  assertMatch(failed.timestamp, /Z$/);
});
