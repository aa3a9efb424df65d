/**
 * The cloud side's seeded state. Every record has the whole shape the real API gives (field
 * names, nesting, JSON types), with our own values. Shapes follow the examples of the official
 * Cloud API OpenAPI description (redis-developer/redis-cloud-rs, tests/fixtures/cloud_openapi.json:
 * `RootAccount`, `PaymentMethods`, `Regions`, `AccountSubscriptions`, `Database`, `AccountACL*`)
 * and the bodies of the official Go client's tests (RedisLabs/rediscloud-go-api, `*_test.go`);
 * `emulator/conformance/cloud_schemas.json` holds the emulator to them.
 */
import { FIXTURE_TIME, type Json, NAMES } from "../fixture.ts";
import { createRandom, type Random } from "../random.ts";

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

/** Where a subscription runs. */
export interface Placement {
  readonly provider: string;
  readonly region: string;
}

const PLACEMENTS: readonly Placement[] = [
  { provider: "AWS", region: "us-east-1" },
  { provider: "AWS", region: "eu-west-1" },
  { provider: "GCP", region: "europe-west1" },
  { provider: "GCP", region: "us-central1" },
];

/** The regions `GET /regions` lists: the real record is a name and a provider, nothing more. */
const REGIONS: readonly Json[] = [
  ...["us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-southeast-1"].map((name) => ({
    name,
    provider: "AWS",
  })),
  ...["europe-west1", "us-central1", "asia-east1"].map((name) => ({ name, provider: "GCP" })),
];

/** Builds the cloud fixture: an account, three subscriptions, two to three databases each. */
export function cloudFixture(seed: number): CloudData {
  const random = createRandom(seed);
  const subscriptions = new Map<number, Json>();
  const databases = new Map<number, Map<number, Json>>();
  let nextDatabaseId = 51;
  for (let i = 0; i < 3; i++) {
    const id = 100_000 + random.int(1, 899) * 100 + i;
    const placement = random.pick(PLACEMENTS);
    subscriptions.set(id, subscription(id, `${random.pick(NAMES)}-${["prod", "staging", "dev"][i]}`, placement));
    const dbs = new Map<number, Json>();
    for (let d = random.int(2, 3); d > 0; d--) {
      const dbId = nextDatabaseId++;
      // Older databases were sized by the deprecated memoryLimitInGb, newer ones by datasetSizeInGb.
      const size = dbId % 3 === 0 ? "memoryLimitInGb" : "datasetSizeInGb";
      const db = cloudDatabase(id, dbId, `${random.pick(NAMES)}-${dbId}`, placement, random);
      dbs.set(dbId, { ...db, [size]: random.pick([1, 2, 5, 10]) });
    }
    databases.set(id, dbs);
  }
  const accountId = 40_000 + random.int(0, 9999);
  return {
    account: {
      id: accountId,
      name: "Example Org",
      createdTimestamp: FIXTURE_TIME,
      updatedTimestamp: FIXTURE_TIME,
      pocStatus: "inactive",
      marketplaceStatus: "active",
      key: {
        name: "emulator-key",
        accountId,
        accountName: "Example Org",
        allowedSourceIps: ["0.0.0.0/0"],
        createdTimestamp: FIXTURE_TIME,
        owner: { name: "Example Owner", email: "owner@example.com" },
        userAccountId: 1,
        httpSourceIp: "127.0.0.1",
      },
    },
    paymentMethods: [
      paymentMethod(7001, "Visa", "4242", 12, 2030),
      paymentMethod(7002, "Mastercard", "4444", 6, 2029),
    ],
    regions: [...REGIONS],
    subscriptions,
    databases,
    aclUsers: [
      { id: 301, name: "app-reader", role: "Read-Only", status: "active", links: [] },
      { id: 302, name: "app-writer", role: "Read-Write", status: "active", links: [] },
    ],
    aclRoles: [aclRole(401, "Read-Only", 9, "Read-Only", [301]), aclRole(402, "Read-Write", 8, "Read-Write", [302])],
    aclRedisRules: [
      { id: 7, name: "Full-Access", acl: "+@all ~*", isDefault: true, status: "active" },
      { id: 8, name: "Read-Write", acl: "+@all -@dangerous ~*", isDefault: true, status: "active" },
      { id: 9, name: "Read-Only", acl: "+@read ~*", isDefault: true, status: "active" },
    ],
    nextId: 1000,
  };
}

function paymentMethod(id: number, type: string, last4: string, month: number, year: number): Json {
  return {
    id,
    type,
    creditCardEndsWith: last4,
    nameOnCard: "Example Org",
    expirationMonth: month,
    expirationYear: year,
    links: [],
  };
}

function aclRole(id: number, name: string, ruleId: number, ruleName: string, users: number[]): Json {
  return {
    id,
    name,
    redisRules: [{ ruleId, ruleName, databases: [] }],
    users: users.map((user) => ({ id: user, name: user === 301 ? "app-reader" : "app-writer" })),
    status: "active",
  };
}

/** A cloud subscription record as the API shows it (without `numberOfDatabases`, which is counted). */
export function subscription(id: number, name: string, placement: Placement): Json {
  return {
    id,
    name,
    status: "active",
    deploymentType: "single-region",
    paymentMethodId: 7001,
    memoryStorage: "ram",
    paymentMethodType: "credit-card",
    storageEncryption: false,
    subscriptionPricing: [{
      type: "Shards",
      typeDetails: "high-throughput",
      quantity: 2,
      quantityMeasurement: "shards",
      pricePerUnit: 0.124,
      priceCurrency: "USD",
      pricePeriod: "hour",
    }],
    cloudDetails: [{
      provider: placement.provider,
      cloudAccountId: 1,
      totalSizeInGb: 0.05,
      regions: [{
        region: placement.region,
        networking: [{ deploymentCIDR: "10.0.0.0/24", subnetId: `subnet-${id.toString(16).padStart(17, "0")}` }],
        preferredAvailabilityZones: [`${placement.region}a`],
        multipleAvailabilityZones: false,
      }],
      links: [],
    }],
    links: [],
  };
}

/** Where a subscription's databases run. */
export function placementOf(sub: Json): Placement {
  return { provider: sub.cloudDetails[0].provider, region: sub.cloudDetails[0].regions[0].region };
}

/**
 * A cloud database record as the API shows it, without its size: the caller adds
 * `datasetSizeInGb` or the deprecated `memoryLimitInGb`, whichever it was sized by.
 */
export function cloudDatabase(
  subscriptionId: number,
  databaseId: number,
  name: string,
  placement: Placement,
  random: Random,
): Json {
  const port = 10_000 + random.int(0, 9999);
  const host = `c${subscriptionId}.${placement.region}-1.example.net`;
  return {
    databaseId,
    name,
    protocol: "redis",
    provider: placement.provider,
    region: placement.region,
    redisVersion: "7.4",
    respVersion: "resp3",
    status: "active",
    memoryUsedInMb: random.int(1, 900),
    memoryStorage: "ram",
    supportOSSClusterApi: false,
    useExternalEndpointForOSSClusterApi: false,
    dataPersistence: "none",
    replication: true,
    dataEvictionPolicy: "volatile-lru",
    throughputMeasurement: { by: "operations-per-second", value: 25_000 },
    activatedOn: FIXTURE_TIME,
    lastModified: FIXTURE_TIME,
    publicEndpoint: `redis-${port}.${host}:${port}`,
    privateEndpoint: `redis-${port}.internal.${host}:${port}`,
    clustering: { numberOfShards: 1, regexRules: [], hashingPolicy: "standard" },
    security: {
      enableDefaultUser: true,
      // The real API shows the default user's password; this one is made up from the ids.
      password: `emulator-${subscriptionId.toString(36)}-${databaseId.toString(36)}`,
      sslClientAuthentication: false,
      tlsClientAuthentication: false,
      enableTls: false,
      sourceIps: ["0.0.0.0/0"],
    },
    modules: [],
    alerts: [],
    links: [],
  };
}

/** The networking of a subscription, as the real task's `response.resource` holds it. */
export function networking(subscriptionId: number): { peerings: Json; psc: Json; tgws: Json } {
  const hex = subscriptionId.toString(16);
  return {
    peerings: {
      peerings: [{
        vpcPeeringId: subscriptionId % 1000 + 1,
        awsAccountId: "123456789012",
        vpcUid: `vpc-${hex}`,
        vpcCidr: "10.10.0.0/16",
        awsPeeringUid: `pcx-${hex}`,
        status: "active",
        regionName: "us-east-1",
      }],
    },
    psc: {
      id: subscriptionId % 1000 + 10,
      connectionHostName: `psc.c${subscriptionId}.us-central1.example.net`,
      serviceAttachmentName: `service-attachment-c${subscriptionId}`,
      status: "active",
    },
    tgws: {
      tgws: [{
        id: subscriptionId % 1000 + 20,
        awsTgwUid: `tgw-${hex}`,
        status: "available",
        attachmentUid: `tgw-attach-${hex}`,
        attachmentStatus: "available",
        awsAccountId: "123456789012",
        cidrs: [{ cidrAddress: "10.20.0.0/16", status: "active" }],
      }],
    },
  };
}
