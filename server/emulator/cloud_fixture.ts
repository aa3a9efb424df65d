import { FIXTURE_TIME, type Json, NAMES } from "./fixture.ts";
import { createRandom, type Random } from "./random.ts";

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

/** Per-database memory quota of every emulated subscription; larger creates fail as a task. */
export const MEMORY_QUOTA_GB = 50;
const REGIONS = [
  { id: 1, name: "us-east-1", provider: "AWS" },
  { id: 2, name: "eu-west-1", provider: "AWS" },
  { id: 3, name: "europe-west1", provider: "GCP" },
  { id: 4, name: "us-central1", provider: "GCP" },
];

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
