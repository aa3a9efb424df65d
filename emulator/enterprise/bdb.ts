import { FIXTURE_TIME, type Json } from "../fixture.ts";

/** What a new database record is made from. */
export interface BdbSeed {
  readonly uid: number;
  readonly name: string;
  readonly memorySize: number;
  /** The cluster's name: endpoints are `redis-<port>.<cluster>`. */
  readonly cluster: string;
  /** The node whose address the endpoint shows. */
  readonly nodeAddr: string;
  /** The first shard id of this database. */
  readonly firstShard: number;
  readonly time?: string;
}

/** The port of a database's endpoint: the cluster picks one from 10000 up. */
export function endpointPort(uid: number): number {
  return 12_000 + uid;
}

/** The fields a create (POST) or update (PUT) may set. */
export const BDB_FIELDS = [
  "name",
  "memory_size",
  "replication",
  "sharding",
  "shards_count",
  "eviction_policy",
  "port",
  "type",
  "oss_cluster",
  "proxy_policy",
  "data_persistence",
  "aof_policy",
  "email_alerts",
];

/**
 * A database (bdb) as a real cluster shows it: every field of a captured `GET /v1/bdbs/{uid}`
 * (redis-developer/redis-enterprise-rs tests/fixtures/bdb_single.json), with our own values.
 * The top-level `port` is 0 unless one was asked for; the endpoint carries the real one.
 */
export function bdb(seed: BdbSeed): Json {
  const port = endpointPort(seed.uid);
  const time = seed.time ?? FIXTURE_TIME;
  return {
    acl: [],
    active_defrag_cycle_max: 25,
    active_defrag_cycle_min: 1,
    active_defrag_ignore_bytes: "104857600",
    active_defrag_max_scan_fields: 1000,
    active_defrag_threshold_lower: 10,
    active_defrag_threshold_upper: 100,
    activedefrag: "no",
    aof_policy: "appendfsync-every-sec",
    // A real cluster shows this internal password; ours is made up per database.
    authentication_admin_pass: `emulator-admin-pass-${String(seed.uid).padStart(4, "0")}`,
    authentication_redis_pass: "",
    authentication_sasl_pass: "",
    authentication_sasl_uname: "",
    authentication_ssl_client_certs: [],
    authentication_ssl_crdt_certs: [],
    authorized_subjects: [],
    auto_upgrade: false,
    background_op: [{ status: "idle" }],
    backup: false,
    backup_failure_reason: "",
    backup_history: 0,
    backup_interval: 86400,
    backup_progress: 0,
    backup_status: "",
    bigstore: false,
    bigstore_max_ram_ratio: 10,
    bigstore_ram_size: 0,
    bigstore_version: 1,
    client_cert_subject_validation_type: "disabled",
    compare_key_hslot: false,
    conns: 5,
    conns_type: "per-thread",
    crdt: false,
    crdt_causal_consistency: false,
    crdt_config_version: 0,
    crdt_ghost_replica_ids: "",
    crdt_guid: "",
    crdt_modules: "[]",
    crdt_repl_backlog_size: "auto",
    crdt_replica_id: 0,
    crdt_replicas: "",
    crdt_sources: [],
    crdt_sync: "disabled",
    crdt_sync_connection_alarm_timeout_seconds: 0,
    crdt_sync_dist: true,
    crdt_syncer_auto_oom_unlatch: true,
    crdt_xadd_id_uniqueness_mode: "strict",
    created_time: time,
    data_internode_encryption: false,
    data_persistence: "disabled",
    dataset_import_sources: [],
    db_conns_auditing: false,
    default_user: true,
    dns_address_master: "",
    dns_suffixes: [],
    email_alerts: false,
    endpoints: [{
      addr: [seed.nodeAddr],
      addr_type: "external",
      dns_name: `redis-${port}.${seed.cluster}`,
      oss_cluster_api_preferred_endpoint_type: "ip",
      oss_cluster_api_preferred_ip_type: "internal",
      port,
      proxy_policy: "single",
      uid: `${seed.uid}:1`,
    }],
    eviction_policy: "volatile-lru",
    export_failure_reason: "",
    export_progress: 0,
    export_status: "",
    flush_on_fullsync: true,
    generate_text_monitor: false,
    gradual_src_max_sources: 1,
    gradual_src_mode: "disabled",
    gradual_sync_max_shards_per_source: 1,
    gradual_sync_mode: "auto",
    group_uid: 0,
    hash_slots_policy: "16k",
    implicit_shard_key: false,
    import_failure_reason: "",
    import_progress: 0,
    import_status: "",
    internal: false,
    last_changed_time: time,
    master_persistence: false,
    max_aof_file_size: 300 * 1024 ** 3,
    max_aof_load_time: 3600,
    max_client_pipeline: 200,
    max_connections: 0,
    max_pipelined: 2000,
    maxclients: 10000,
    memory_size: seed.memorySize,
    metrics_export_all: false,
    mkms: true,
    module_list: [
      { module_args: "", module_id: moduleId("search"), module_name: "search", semantic_version: "7.4.2" },
      { module_args: "", module_id: moduleId("ReJSON"), module_name: "ReJSON", semantic_version: "7.4.1" },
    ],
    mtls_allow_outdated_certs: false,
    mtls_allow_weak_hashing: false,
    multi_commands_opt: "auto",
    name: seed.name,
    oss_cluster: false,
    oss_cluster_api_preferred_endpoint_type: "ip",
    oss_cluster_api_preferred_ip_type: "internal",
    oss_sharding: false,
    port: 0,
    proxy_policy: "single",
    rack_aware: false,
    recovery_wait_time: -1,
    redis_cluster_enabled: false,
    redis_version: "7.4",
    repl_backlog_size: "auto",
    replica_read_only: false,
    replica_sources: [],
    replica_sync: "disabled",
    replica_sync_connection_alarm_timeout_seconds: 0,
    replica_sync_dist: true,
    replication: false,
    resp3: true,
    roles_permissions: [],
    sched_policy: "cmp",
    shard_block_crossslot_keys: false,
    shard_block_foreign_keys: true,
    shard_key_regex: [],
    shard_list: [seed.firstShard],
    sharding: false,
    shards_count: 1,
    shards_placement: "dense",
    skip_import_analyze: "disabled",
    slave_buffer: "auto",
    slave_ha: false,
    slave_ha_priority: 0,
    snapshot_policy: [],
    ssl: false,
    status: "active",
    support_syncer_reconf: true,
    sync: "disabled",
    sync_dedicated_threads: 5,
    sync_sources: [],
    syncer_log_level: "info",
    syncer_mode: "distributed",
    throughput_ingress: 0,
    tls_mode: "disabled",
    topology_epoch: 1,
    tracking_table_max_keys: 1_000_000,
    type: "redis",
    uid: seed.uid,
    use_selective_flush: true,
    version: "7.4.2",
    wait_command: true,
  };
}

/** A stable 32-hex-digit id for a module (a real cluster shows a hash). */
function moduleId(name: string): string {
  let h = 0x811c9dc5;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0").repeat(4);
}

/**
 * Applies a create or update body to a record so that it stays consistent: a `port` moves the
 * endpoint, `shards_count` and `replication` resize the shard list.
 */
export function applyBdbChanges(record: Json, body: Json, nextShard: () => number): void {
  Object.assign(record, body);
  if (typeof body.port === "number") {
    record.endpoints = record.endpoints.map((e: Json) => ({
      ...e,
      port: body.port,
      dns_name: e.dns_name.replace(/^redis-\d+/, `redis-${body.port}`),
    }));
  }
  if ("shards_count" in body || "replication" in body) {
    const wanted = (record.shards_count ?? 1) * (record.replication ? 2 : 1);
    while (record.shard_list.length < wanted) record.shard_list.push(nextShard());
    record.shard_list.length = wanted;
  }
}

const BDB_NAME = /^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/;

/** What is wrong with a create (`creating`) or update body, if anything. */
export function bdbProblem(body: Json, creating: boolean): string | undefined {
  if ((creating || "name" in body) && !(typeof body.name === "string" && BDB_NAME.test(body.name))) {
    return "Field 'name' is required: letters, digits and '-', up to 63 characters";
  }
  if ((creating || "memory_size" in body) && !(Number.isSafeInteger(body.memory_size) && body.memory_size > 0)) {
    return "Field 'memory_size' is required and must be a positive integer number of bytes";
  }
  if ("port" in body && !(Number.isInteger(body.port) && body.port >= 1024 && body.port <= 65535)) {
    return "Field 'port' must be an integer from 1024 to 65535";
  }
  if ("shards_count" in body && !(Number.isInteger(body.shards_count) && body.shards_count >= 1)) {
    return "Field 'shards_count' must be a positive integer";
  }
  for (const flag of ["replication", "sharding", "oss_cluster", "email_alerts"]) {
    if (flag in body && typeof body[flag] !== "boolean") return `Field '${flag}' must be a boolean`;
  }
  return undefined;
}
