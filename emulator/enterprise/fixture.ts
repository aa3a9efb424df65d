/**
 * The enterprise side's seeded state. Every object has the real API's shape — the fields and
 * JSON types of captures of a real cluster (redis-developer/redis-enterprise-rs
 * tests/fixtures/*.json) or, where there is no capture, of the REST API reference
 * (RedisLabs/redislabs-docs content/rs/references/rest-api) — with our own values.
 * `conformance/enterprise_fields.json` holds those field sets; the conformance test checks them.
 *
 * @module
 */
import { bdb } from "./bdb.ts";
import { FIXTURE_TIME, type Json, NAMES } from "../fixture.ts";
import { createRandom } from "../random.ts";

/** Mutable state behind the enterprise API. */
export interface EnterpriseData {
  cluster: Json;
  nodes: Map<number, Json>;
  bdbs: Map<number, Json>;
  users: Map<number, Json>;
  roles: Json[];
  redisAcls: Json[];
  crdbs: Json[];
  crdbTasks: Json[];
  logs: Json[];
  /** Long-running operations (`GET /v1/actions`): node removals. */
  actions: Json[];
  /** State machines (`GET /v1/actions`, `state-machines`): database creations. */
  stateMachines: Json[];
  /** The last shard id given out. */
  lastShard: number;
}

export const CLUSTER_NAME = "cluster.example.local";
const GiB = 1024 ** 3;

/** The address of node `uid`. */
export const nodeAddr = (uid: number) => `10.0.0.${uid}`;

/** Builds the enterprise fixture: a three-node cluster with four databases. */
export function enterpriseFixture(seed: number, softwareVersion: string, certificate = ""): EnterpriseData {
  const random = createRandom(seed + 1);
  const nodes = new Map<number, Json>();
  for (let uid = 1; uid <= 3; uid++) nodes.set(uid, node(uid, softwareVersion));
  const bdbs = new Map<number, Json>();
  for (let uid = 1; uid <= 4; uid++) {
    const name = `${NAMES[(uid + random.int(0, 3)) % NAMES.length]}-db${uid}`;
    const record = bdb({
      uid,
      name,
      memorySize: random.pick([1, 2, 4]) * GiB,
      cluster: CLUSTER_NAME,
      nodeAddr: nodeAddr(((uid - 1) % 3) + 1),
      firstShard: uid,
    });
    bdbs.set(uid, record);
  }
  return {
    cluster: cluster(certificate),
    nodes,
    bdbs,
    users: new Map([
      [1, user(1, "Administrator", "admin@example.com", "admin", 1)],
      [2, user(2, "Viewer", "viewer@example.com", "db_viewer", 5)],
    ]),
    // The reference's example bodies: uid, name, management.
    roles: [
      { uid: 1, name: "Admin", management: "admin" },
      { uid: 2, name: "Cluster Member", management: "cluster_member" },
      { uid: 3, name: "Cluster Viewer", management: "cluster_viewer" },
      { uid: 4, name: "DB Member", management: "db_member" },
      { uid: 5, name: "DB Viewer", management: "db_viewer" },
      { uid: 6, name: "None", management: "none" },
    ],
    redisAcls: [
      { uid: 1, name: "Full Access", acl: "+@all ~*" },
      { uid: 2, name: "Read Only", acl: "+@read ~*" },
      { uid: 3, name: "Not Dangerous", acl: "+@all -@dangerous ~*" },
    ],
    crdbs: [crdb("6f1c2a52-0000-4000-8000-000000000001", "global-sessions", GiB, [])],
    crdbTasks: [{
      id: "b1e0c7a4-0000-4000-8000-000000000001",
      status: "finished",
      crdb_guid: "6f1c2a52-0000-4000-8000-000000000001",
    }],
    logs: Array.from({ length: 20 }, (_, i) => logEvent(i, random.next(), [...bdbs.values()])),
    actions: [],
    stateMachines: [...bdbs.values()].map((b) => stateMachine(b.uid, Date.parse(FIXTURE_TIME) / 1000, "completed")),
    lastShard: bdbs.size,
  };
}

/** The cluster (tests/fixtures/cluster.json): settings only; it has no `status` or `state`. */
function cluster(certificate: string): Json {
  const threshold = (value: string) => ({ enabled: true, threshold: value });
  return {
    alert_settings: {
      cluster_ca_cert_about_to_expire: threshold("90"),
      cluster_certs_about_to_expire: threshold("45"),
      cluster_license_about_to_expire: threshold("7"),
      cluster_node_operation_failed: true,
      cluster_ocsp_query_failed: true,
      cluster_ocsp_status_revoked: true,
      node_checks_error: true,
      node_ephemeral_storage: threshold("70"),
      node_free_flash: threshold("70"),
      node_internal_certs_about_to_expire: threshold("45"),
      node_persistent_storage: threshold("70"),
    },
    availability_lag_tolerance_ms: 100,
    bigstore_driver: "speedb",
    block_cluster_changes: false,
    ccs_internode_encryption: true,
    cluster_api_internal_port: 3346,
    cluster_ssh_public_key: "ssh-rsa AAAAemulator-public-key-not-a-real-one cluster@emulator",
    cm_port: 8443,
    cm_server_version: 1,
    cm_session_timeout_minutes: 15,
    cnm_http_max_threads_per_worker: 10,
    cnm_http_port: 8080,
    cnm_http_workers: 1,
    cnm_https_port: 9443,
    control_cipher_suites: "DEFAULT:!3DES",
    control_cipher_suites_tls_1_3: "TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256",
    crdb_coordinator_ignore_requests: false,
    crdb_coordinator_port: 9081,
    crdt_supported_featureset_version: 8,
    crdt_supported_protocol_versions: ["1"],
    created_time: FIXTURE_TIME,
    data_cipher_list: "DEFAULT:!aNULL:!eNULL:!EXPORT:!DES:!3DES:!RC4:!MD5",
    data_cipher_suites_tls_1_3: [],
    debuginfo_path: "/tmp",
    email_alerts: false,
    encrypt_pkeys: false,
    entra_id_cache_ttl: 30,
    envoy_admin_port: 8002,
    envoy_external_authorization: false,
    envoy_max_downstream_connections: 1024,
    envoy_mgmt_server_port: 8004,
    gossip_envoy_admin_port: 8006,
    handle_metrics_redirects: false,
    handle_redirects: false,
    http_support: true,
    logrotate_settings: { maxage: 7, maxsize: "200M", rotate: 10 },
    mask_bdb_credentials: false,
    metrics_system: 0,
    min_control_TLS_version: "1.2",
    min_data_TLS_version: "1.2",
    min_sentinel_TLS_version: "1.2",
    module_upload_max_size_mb: 40,
    mtls_authorized_subjects: [],
    mtls_certificate_authentication: false,
    mtls_client_cert_subject_validation_type: "disabled",
    multi_commands_opt: "batch",
    name: CLUSTER_NAME,
    options_method_forbidden: false,
    password_complexity: false,
    password_expiration_duration: 0,
    password_hashing_algorithm: "SHA-256",
    password_min_length: 8,
    proxy_certificate: certificate,
    rack_aware: true,
    reserved_ports: [],
    robust_crdt_syncer: true,
    s3_certificate_verification: true,
    sentinel_cipher_suites: [],
    sentinel_cipher_suites_tls_1_3: "TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256",
    sentinel_tls_mode: "allowed",
    slave_ha: true,
    slave_ha_bdb_cooldown_period: 7200,
    slave_ha_cooldown_period: 3600,
    slave_ha_grace_period: 600,
    slowlog_in_sanitized_support: true,
    smtp_tls_mode: "none",
    smtp_use_tls: false,
    syncer_certificate: certificate,
    system_reserved_ports: [3333, 3334, 3335, 3336, 8001, 8002, 8004, 8006, 8070, 8071, 8080, 8443, 9080, 9081, 9443],
    upgrade_in_progress: false,
    upgrade_mode: false,
    use_external_ipv6: true,
    use_ipv6: true,
    wait_command: true,
  };
}

/** The database versions a node can run (a node and the bootstrap's local node list them). */
function supportedVersions(): Json[] {
  return [
    { db_type: "redis", major: true, redis_version: "7.4", version: "7.4.2" },
    { db_type: "redis", major: true, redis_version: "7.2", version: "7.2.7" },
    { db_type: "memcached", version: "1.4.17" },
  ];
}

const STORAGE = 900 * GiB;

/** A node (tests/fixtures/nodes.json). `shard_count` and `shard_list` are filled in when shown. */
function node(uid: number, softwareVersion: string): Json {
  return {
    accept_servers: true,
    addr: nodeAddr(uid),
    architecture: "x86_64",
    bigredis_storage_path: "/var/opt/redislabs/flash",
    bigstore_enabled: false,
    cores: 4,
    ephemeral_storage_path: "/var/opt/redislabs/tmp",
    ephemeral_storage_size: STORAGE,
    external_addr: [],
    fips_enabled: false,
    flash_shard_count: 0,
    max_listeners: 100,
    max_redis_forks: -1,
    max_redis_servers: 100,
    max_slave_full_syncs: -1,
    ...NODE_HOST,
    rack_id: `rack-${uid}`,
    ram_shard_count: 0,
    second_rack_id: "",
    shard_count: 0,
    shard_list: [],
    software_version: softwareVersion,
    status: "active",
    supported_database_versions: supportedVersions(),
    total_memory: 16 * GiB,
    uid,
    uptime: 86_400 * uid,
    use_internal_ipv6: false,
  };
}

/** What a node and its bootstrap status say alike of the host it runs on. */
const NODE_HOST = {
  os_family: "ubuntu",
  os_name: "ubuntu",
  os_semantic_version: "22.04",
  os_version: "Ubuntu 22.04.4 LTS",
  persistent_storage_path: "/var/opt/redislabs/persist",
  persistent_storage_size: STORAGE,
};

/**
 * A node as shown: its shards are those of the databases placed on it (shard `s` on the
 * `(s - 1) % n`-th node), so removing a node moves them to the others.
 */
export function nodeView(record: Json, data: EnterpriseData): Json {
  const uids = [...data.nodes.keys()].sort((a, b) => a - b);
  const at = uids.indexOf(record.uid);
  const shards = [...data.bdbs.values()].flatMap((b) => b.shard_list as number[])
    .filter((s) => (s - 1) % uids.length === at).sort((a, b) => a - b);
  return { ...record, shard_count: shards.length, ram_shard_count: shards.length, shard_list: shards };
}

/** What `/v1/bootstrap` tells about the node that answers (tests/fixtures/bootstrap_status.json). */
export function bootstrapBody(softwareVersion: string): Json {
  return {
    bootstrap_status: { end_time: "2026-01-01T00:02:00Z", start_time: FIXTURE_TIME, state: "completed" },
    local_node_info: {
      architecture: "x86_64",
      available_addresses: [{ address: nodeAddr(1), format: "ipv4", if_name: "eth0", private: true }],
      bigredis_storage_path: "/var/opt/redislabs/flash",
      bridge_interfaces: [],
      cnm_version_sha: "0123456789abcdef0123456789abcdef01234567",
      cores: 4,
      ephemeral_storage_path: "/var/opt/redislabs/tmp",
      ephemeral_storage_size: STORAGE,
      fips_enabled: false,
      ...NODE_HOST,
      short_hostname: "node-1",
      software_version: softwareVersion,
      supported_bigstore_drivers: ["speedb"],
      supported_database_versions: supportedVersions(),
      total_memory: 16 * GiB,
      // A string here, unlike a node's `uid`, as in the capture.
      uid: "1",
      uptime: 86_400,
    },
  };
}

/** A user (tests/fixtures/users_list.json); the password is never shown. */
export function user(uid: number, name: string, email: string, role: string, roleUid: number): Json {
  return {
    auth_method: "regular",
    certificate_subject_line: "",
    email,
    email_alerts: true,
    name,
    password_issue_date: FIXTURE_TIME,
    role,
    role_uids: [roleUid],
    status: "active",
    uid,
  };
}

/** An active-active database (the reference's crdb object). */
export function crdb(guid: string, name: string, memorySize: number, instances: Json[]): Json {
  return {
    guid,
    name,
    causal_consistency: false,
    default_db_config: { memory_size: memorySize },
    encryption: false,
    featureset_version: 8,
    instances: instances.length > 0
      ? instances
      : [{ id: 1, cluster: { name: CLUSTER_NAME, url: `https://${CLUSTER_NAME}:9443` }, db_uid: "" }],
    local_databases: [],
    protocol_version: 1,
  };
}

/** A state machine of `GET /v1/actions` (tests/fixtures/actions_list.json). */
export function stateMachine(bdbUid: number, heartbeat: number, status: string): Json {
  return {
    action_uid: `5a3e0d10-0000-4000-8000-${String(bdbUid).padStart(12, "0")}`,
    heartbeat: Math.floor(heartbeat),
    name: "SMCreateBDB",
    object_name: `bdb:${bdbUid}`,
    status,
  };
}

/** An event of the cluster's log, with the fields of its type (the reference's examples). */
function logEvent(i: number, roll: number, bdbs: Json[]): Json {
  const time = new Date(Date.parse(FIXTURE_TIME) + i * 3_600_000).toISOString().slice(0, 19) + "Z";
  const db = bdbs[i % bdbs.length];
  if (roll < 0.3) {
    return { time, type: "cluster_bdb_created", severity: "INFO", bdb_uid: String(db.uid), bdb_name: db.name };
  }
  if (roll < 0.5) return { time, type: "cluster_node_joined", severity: "INFO", node_uid: (i % 3) + 1 };
  if (roll < 0.8) {
    return {
      time,
      type: "bdb_name_updated",
      severity: "INFO",
      bdb_uid: String(db.uid),
      old_val: "tmp",
      new_val: db.name,
    };
  }
  return { time, type: "node_memory", severity: "WARNING", node_uid: (i % 3) + 1 };
}
