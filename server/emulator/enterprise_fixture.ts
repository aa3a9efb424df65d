import { FIXTURE_TIME, type Json, NAMES } from "./fixture.ts";
import { createRandom } from "./random.ts";

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
  alerts: Json;
}

/** Builds the enterprise fixture: a three-node cluster with four databases. */
export function enterpriseFixture(seed: number, softwareVersion: string): EnterpriseData {
  const random = createRandom(seed + 1);
  const nodes = new Map<number, Json>();
  for (let uid = 1; uid <= 3; uid++) {
    nodes.set(uid, {
      uid,
      addr: `10.0.0.${uid}`,
      status: "active",
      software_version: softwareVersion,
      os_version: "Ubuntu 22.04.4 LTS",
      total_memory: 16 * 1024 ** 3,
      cores: 4,
      shard_count: 0,
      accept_servers: true,
      rack_id: `rack-${uid}`,
    });
  }
  const bdbs = new Map<number, Json>();
  for (let uid = 1; uid <= 4; uid++) {
    bdbs.set(
      uid,
      bdb(uid, `${NAMES[(uid + random.int(0, 3)) % NAMES.length]}-db${uid}`, random.pick([1, 2, 4]) * 1024 ** 3),
    );
  }
  return {
    cluster: {
      name: "cluster.example.local",
      status: "active",
      state: "active",
      created_time: FIXTURE_TIME,
      email_alerts: false,
      rack_aware: true,
    },
    nodes,
    bdbs,
    users: new Map([
      [1, {
        uid: 1,
        name: "Admin",
        email: "",
        role: "admin",
        role_uids: [1],
        auth_method: "regular",
        status: "active",
      }],
      [2, {
        uid: 2,
        name: "Viewer",
        email: "viewer@example.com",
        role: "db_viewer",
        role_uids: [3],
        auth_method: "regular",
        status: "active",
      }],
    ]),
    roles: [
      { uid: 1, name: "Admin", management: "admin" },
      { uid: 2, name: "DB Member", management: "db_member" },
      { uid: 3, name: "DB Viewer", management: "db_viewer" },
    ],
    redisAcls: [
      { uid: 1, name: "Full Access", acl: "+@all ~*" },
      { uid: 2, name: "Not Dangerous", acl: "+@all -@dangerous ~*" },
      { uid: 3, name: "Read Only", acl: "+@read ~*" },
    ],
    crdbs: [{
      guid: "6f1c2a52-0000-4000-8000-000000000001",
      name: "global-sessions",
      default_db_config: { memory_size: 1024 ** 3 },
      instances: [{ id: 1, cluster: { name: "cluster.example.local" } }],
    }],
    crdbTasks: [{
      id: "b1e0c7a4-0000-4000-8000-000000000001",
      status: "finished",
      crdb_guid: "6f1c2a52-0000-4000-8000-000000000001",
    }],
    logs: Array.from({ length: 20 }, (_, i) => ({
      time: new Date(Date.parse(FIXTURE_TIME) + i * 3_600_000).toISOString(),
      type: random.pick(["bdb_updated", "node_checked", "cluster_license_checked", "user_login"]),
      severity: random.pick(["INFO", "INFO", "WARNING"]),
    })),
    alerts: {
      cluster_certs_about_to_expire: { enabled: true, state: false, severity: "WARNING", change_time: FIXTURE_TIME },
      node_memory: { enabled: true, state: false, severity: "WARNING", threshold: "80" },
    },
  };
}

/** An enterprise database (bdb) record as the API shows it. */
export function bdb(uid: number, name: string, memorySize: number): Json {
  return {
    uid,
    name,
    type: "redis",
    memory_size: memorySize,
    status: "active",
    port: 12_000 + uid,
    shards_count: 1,
    replication: false,
    sharding: false,
    eviction_policy: "volatile-lru",
    version: "7.2",
    created_time: FIXTURE_TIME,
    last_changed_time: FIXTURE_TIME,
    endpoints: [{ dns_address_master: `redis-${12_000 + uid}.cluster.example.local`, port: 12_000 + uid }],
  };
}
