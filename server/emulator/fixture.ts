import { createRandom, type Random } from "./random.ts";

// Records are loose JSON objects: the emulator hands them back as the APIs do, with more
// fields than the clients read.
// deno-lint-ignore no-explicit-any
export type Json = Record<string, any>;

/** Mutable state behind the cloud API. */
export interface CloudData {
  account: Json;
  paymentMethods: Json[];
  regions: Json[];
  subscriptions: Map<number, Json>;
  /** Databases by subscription id, then database id. */
  databases: Map<number, Map<number, Json>>;
  aclUsers: Json[];
  aclRoles: Json[];
  aclRedisRules: Json[];
  nextId: number;
}

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

/** Per-database memory quota of every emulated subscription; larger creates fail as a task. */
export const MEMORY_QUOTA_GB = 50;

const NAMES = ["orders", "sessions", "catalog", "leaderboard", "inventory", "cache", "events", "profiles"];
const REGIONS = [
  { id: 1, name: "us-east-1", provider: "AWS" },
  { id: 2, name: "eu-west-1", provider: "AWS" },
  { id: 3, name: "europe-west1", provider: "GCP" },
  { id: 4, name: "us-central1", provider: "GCP" },
];
const FIXTURE_TIME = "2026-01-01T00:00:00Z";

/** Builds the cloud fixture: an account, three subscriptions, two to three databases each. */
export function cloudFixture(seed: number): CloudData {
  const random = createRandom(seed);
  const subscriptions = new Map<number, Json>();
  const databases = new Map<number, Map<number, Json>>();
  let nextDatabaseId = 51;
  for (let i = 0; i < 3; i++) {
    const id = 100_000 + random.int(1, 899) * 100 + i;
    const region = random.pick(REGIONS);
    subscriptions.set(id, subscription(id, `${random.pick(NAMES)}-${["prod", "staging", "dev"][i]}`, region));
    const dbs = new Map<number, Json>();
    for (let d = random.int(2, 3); d > 0; d--) {
      const dbId = nextDatabaseId++;
      dbs.set(dbId, cloudDatabase(dbId, `${random.pick(NAMES)}-${dbId}`, random.pick([1, 2, 5, 10]), region, random));
    }
    databases.set(id, dbs);
  }
  return {
    account: {
      id: 40_000 + random.int(0, 9999),
      name: "Example Org",
      createdTimestamp: FIXTURE_TIME,
      updatedTimestamp: FIXTURE_TIME,
      marketplaceStatus: "active",
      key: { name: "emulator-key", accountId: 0, allowedSourceIps: ["0.0.0.0/0"] },
    },
    paymentMethods: [
      {
        id: 7001,
        type: "Visa",
        creditCardEndsWith: 4242,
        nameOnCard: "Example Org",
        expirationMonth: 12,
        expirationYear: 2030,
      },
      {
        id: 7002,
        type: "Mastercard",
        creditCardEndsWith: 4444,
        nameOnCard: "Example Org",
        expirationMonth: 6,
        expirationYear: 2029,
      },
    ],
    regions: REGIONS.map((r) => ({ ...r, availableZones: ["a", "b", "c"].map((z) => `${r.name}${z}`) })),
    subscriptions,
    databases,
    aclUsers: [
      { id: 301, name: "app-reader", role: "Read-Only", status: "active" },
      { id: 302, name: "app-writer", role: "Read-Write", status: "active" },
    ],
    aclRoles: [
      { id: 401, name: "Read-Only", redisRules: [{ ruleId: 501, ruleName: "Read-Only" }], users: [{ id: 301 }] },
      { id: 402, name: "Read-Write", redisRules: [{ ruleId: 502, ruleName: "Full-Access" }], users: [{ id: 302 }] },
    ],
    aclRedisRules: [
      { id: 501, name: "Read-Only", acl: "+@read ~*", isDefault: true, status: "active" },
      { id: 502, name: "Full-Access", acl: "+@all ~*", isDefault: true, status: "active" },
    ],
    nextId: 1000,
  };
}

/** A cloud subscription record as the API shows it. */
export function subscription(id: number, name: string, region: { name: string; provider: string }): Json {
  return {
    id,
    name,
    status: "active",
    paymentMethodId: 7001,
    paymentMethodType: "credit-card",
    memoryStorage: "ram",
    storageEncryption: false,
    cloudDetails: [{ provider: region.provider, regions: [{ region: region.name, multipleAvailabilityZones: false }] }],
  };
}

/** A cloud database record as the API shows it. */
export function cloudDatabase(
  databaseId: number,
  name: string,
  memoryLimitInGb: number,
  region: { name: string; provider: string },
  random: Random,
): Json {
  const port = 10_000 + random.int(0, 9999);
  return {
    databaseId,
    name,
    protocol: "redis",
    provider: region.provider,
    region: region.name,
    redisVersion: "7.4",
    status: "active",
    memoryLimitInGb,
    memoryUsedInMb: random.int(1, Math.round(memoryLimitInGb * 300)),
    memoryStorage: "ram",
    supportOSSClusterApi: false,
    dataPersistence: "none",
    replication: true,
    dataEvictionPolicy: "volatile-lru",
    activatedOn: FIXTURE_TIME,
    lastModified: FIXTURE_TIME,
    publicEndpoint: `redis-${port}.c1.${region.name}.example.net:${port}`,
    privateEndpoint: `redis-${port}.internal.c1.${region.name}.example.net:${port}`,
  };
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
