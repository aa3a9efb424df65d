import { FIXTURE_TIME, type Json } from "../fixture.ts";

/**
 * One alert as the API shows it (redis-enterprise-rs tests/fixtures/cluster_alerts.json; the
 * reference's alert object): whether it is on (`enabled`), raised (`state`), and, in
 * `change_value`, what was measured when it last changed — the threshold as `global_threshold`
 * for a cluster or node alert, `threshold` for a database alert.
 */
function alert(enabled: boolean, state: boolean, severity: string, change: Json = {}): Json {
  return { change_time: FIXTURE_TIME, change_value: { ...change, state }, enabled, severity, state };
}

/** The cluster's alerts; the node-count ones follow the cluster's size, disabled as by default. */
export function clusterAlerts(nodeCount: number): Json {
  return {
    cluster_ca_cert_about_to_expire: alert(true, false, "INFO", { global_threshold: "90" }),
    cluster_certs_about_to_expire: alert(true, false, "INFO", { certs_about_to_expire: [], global_threshold: "45" }),
    cluster_even_node_count: alert(false, nodeCount % 2 === 0, "WARNING", { node_count: nodeCount }),
    cluster_flash_overcommit: alert(false, false, "INFO", { bdbs_committed_flash: 0 }),
    cluster_inconsistent_rl_sw: alert(false, false, "INFO"),
    cluster_internal_bdb: alert(false, false, "INFO", { internal_bdb: "" }),
    cluster_license_about_to_expire: alert(true, false, "INFO", { global_threshold: "7" }),
    cluster_multiple_nodes_down: alert(false, false, "INFO", { dead_nodes: [] }),
    cluster_ocsp_query_failed: alert(true, false, "INFO"),
    cluster_ocsp_status_revoked: alert(true, false, "INFO"),
    cluster_ram_overcommit: alert(false, false, "INFO", { bdbs_committed_ram: 0 }),
    cluster_too_few_nodes_for_replication: alert(false, nodeCount < 2, "WARNING"),
  };
}

/** A node's alerts (`GET /v1/nodes/alerts/{uid}`), none raised. */
export function nodeAlerts(): Json {
  return {
    node_checks_error: alert(true, false, "WARNING"),
    node_cpu_utilization: alert(true, false, "WARNING", { global_threshold: "80" }),
    node_ephemeral_storage: alert(true, false, "WARNING", { global_threshold: "70" }),
    node_failed: alert(true, false, "CRITICAL"),
    node_free_flash: alert(true, false, "WARNING", { global_threshold: "70" }),
    node_memory: alert(true, false, "WARNING", { global_threshold: "80" }),
    node_persistent_storage: alert(true, false, "WARNING", { global_threshold: "70" }),
  };
}

/** A database's alerts (`GET /v1/bdbs/alerts/{uid}`), none raised. */
export function bdbAlerts(): Json {
  return {
    bdb_backup_delayed: alert(false, false, "WARNING", { threshold: "1800" }),
    bdb_high_latency: alert(false, false, "WARNING", { threshold: "3000" }),
    bdb_size: alert(true, false, "WARNING", { threshold: "80" }),
  };
}
