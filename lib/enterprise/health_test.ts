import { assertEquals } from "../../testing/assert.ts";
import { summarizeHealth } from "./health.ts";

const node = (uid: number, status = "active") => ({ uid, status });
const db = (uid: number, name: string, status = "active") => ({ uid, name, memory_size: 1, status });
const off = { enabled: true, state: false, severity: "INFO" };

Deno.test("summarizeHealth() is healthy when every node and database is active and no enabled alert is raised", () => {
  const health = summarizeHealth({
    nodes: [node(1), node(2), node(3)],
    bdbs: [db(1, "a"), db(2, "b")],
    // Raised but disabled, as a real cluster shows cluster_even_node_count by default: not counted.
    clusterAlerts: { cluster_even_node_count: { enabled: false, state: true, severity: "WARNING" }, other: off },
    nodeAlerts: { "1": { node_memory: off } },
    bdbAlerts: {},
  });
  assertEquals(health, {
    health: "healthy",
    summary: "3/3 nodes active, 2/2 databases active, no active alerts",
    nodes: { total: 3, active: 3 },
    databases: { total: 2, active: 2 },
    alerts: [],
  });
});

Deno.test("summarizeHealth() names what is not active and every raised alert", () => {
  const health = summarizeHealth({
    nodes: [node(1), node(2, "down")],
    bdbs: [db(1, "a"), db(5, "slow", "pending")],
    clusterAlerts: { cluster_license_about_to_expire: { enabled: true, state: true, severity: "WARNING" } },
    nodeAlerts: { "2": { node_failed: { enabled: true, state: true, severity: "CRITICAL" } } },
    bdbAlerts: { "1": { bdb_size: { enabled: true, state: true } } },
  });
  assertEquals(health.health, "degraded");
  assertEquals(
    health.summary,
    "1/2 nodes active (node 2: down), 1/2 databases active (5 slow: pending), 3 active alerts: " +
      "cluster_license_about_to_expire, node_failed on node 2, bdb_size on database 1",
  );
  assertEquals(health.alerts?.map((a) => [a.scope, a.uid]), [["cluster", undefined], ["node", 2], ["database", 1]]);
});

Deno.test("summarizeHealth() shows a cluster's status and state when it has them; unread parts are unknown", () => {
  const spec = summarizeHealth({
    cluster: { name: "c", status: "active", state: "active" },
    nodes: [node(1)],
    bdbs: [],
  });
  assertEquals([spec.health, spec.summary], [
    "unknown",
    "cluster active, 1/1 nodes active, 0/0 databases active, alerts unknown",
  ]);
  const down = summarizeHealth({
    cluster: { name: "c", status: "down" },
    clusterAlerts: {},
    nodeAlerts: {},
    bdbAlerts: {},
  });
  assertEquals([down.health, down.summary], [
    "degraded",
    "cluster down, nodes unknown, databases unknown, no active alerts",
  ]);
});
