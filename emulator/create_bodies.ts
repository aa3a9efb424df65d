import { z } from "zod";
import type { Json } from "./fixture.ts";

/**
 * Body schemas of the create routes that take nested JSON, and one message for the first thing
 * wrong with a body, in the style of the emulator's other checks ("Field 'x' must be …").
 * Unknown top-level fields are refused, as on `POST /v1/bdbs`; objects inside accept fields the
 * emulator does not model, typed where it does.
 */

/** A rule in words: the message of every check of a field ("must be …", "is required …"). */
const says = (error: string) => ({ error });
/** A whole number from `min` to `max`, with one message for every way to miss. */
const integer = (min: number, max: number, rule: string) =>
  z.number(says(rule)).int(says(rule)).min(min, says(rule)).max(max, says(rule));
const positiveInteger = integer(1, Number.MAX_SAFE_INTEGER, "must be a positive integer");
const positiveNumber = z.number(says("must be a number greater than 0")).positive(
  says("must be a number greater than 0"),
);
const boolean = z.boolean(says("must be a boolean"));
const text = z.string(says("must be a string"));
const requiredName = z.string(says("is required and must be a non-empty string")).trim()
  .min(1, says("is required and must be a non-empty string"));

const CRDB_NAME = /^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/;
const CRDB_NAME_RULE = "is required: letters, digits and '-', up to 63 characters";

/** Enterprise `POST /v1/crdbs`: an Active-Active database across clusters. */
export const CrdbCreate = z.strictObject({
  name: z.string(says(CRDB_NAME_RULE)).regex(CRDB_NAME, says(CRDB_NAME_RULE)),
  default_db_config: z.looseObject({
    memory_size: positiveInteger.optional(),
    shards_count: positiveInteger.optional(),
    replication: boolean.optional(),
    port: integer(1, 65535, "must be a port number from 1 to 65535").optional(),
    eviction_policy: text.optional(),
  }).optional(),
  instances: z.array(z.looseObject({
    cluster: z.looseObject({
      url: z.url(says("must be a URL")),
      name: text.optional(),
      credentials: z.looseObject({ username: text, password: text }).optional(),
    }),
    compression: integer(0, 6, "must be a whole number from 0 to 6").optional(),
  })).optional(),
  encryption: boolean.optional(),
  causal_consistency: boolean.optional(),
  featureset_version: positiveInteger.optional(),
});

/** Cloud `POST /subscriptions`. */
export const SubscriptionCreate = z.strictObject({
  name: requiredName,
  dryRun: boolean.optional(),
  deploymentType: z.enum(["single-region", "active-active"]).optional(),
  paymentMethod: z.enum(["credit-card", "marketplace"]).optional(),
  paymentMethodId: positiveInteger.optional(),
  memoryStorage: z.enum(["ram", "ram-and-flash"]).optional(),
  redisVersion: text.optional(),
  cloudProviders: z.array(z.looseObject({
    provider: z.enum(["AWS", "GCP"]).optional(),
    cloudAccountId: positiveInteger.optional(),
    regions: z.array(z.looseObject({
      region: z.string(says("must be a string")).min(1, says("must be a non-empty string")),
      multipleAvailabilityZones: boolean.optional(),
      preferredAvailabilityZones: z.array(text).optional(),
      networking: z.looseObject({ deploymentCIDR: text.optional(), vpcId: text.optional() }).optional(),
    })).min(1),
  })).min(1).optional(),
  databases: z.array(z.looseObject({
    name: requiredName,
    protocol: z.enum(["redis", "memcached", "stack"]).optional(),
    memoryLimitInGb: positiveNumber.optional(),
    datasetSizeInGb: positiveNumber.optional(),
    replication: boolean.optional(),
    quantity: positiveInteger.optional(),
  })).optional(),
});

/**
 * The body, typed, or a message naming the first invalid field: `Field 'instances.0.cluster.url'
 * must be a URL`, `Unknown field 'x'; allowed fields are: …`.
 */
export function checkBody<T extends z.ZodObject>(schema: T, body: Json): z.infer<T> | string {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue.path.join(".");
  if (issue.code === "unrecognized_keys") {
    const allowed = field ? "" : `; allowed fields are: ${Object.keys(schema.shape).join(", ")}`;
    return `Unknown field '${[...issue.path, issue.keys[0]].join(".")}'${allowed}`;
  }
  return `Field '${field}' ${describe(issue)}`;
}

/** Our own words where the schema gave them, else words for zod's kinds of issue. */
function describe(issue: z.core.$ZodIssue): string {
  if (/^(must|is required)/.test(issue.message)) return issue.message;
  switch (issue.code) {
    case "invalid_type":
      return `must be ${/^[aeiou]/.test(issue.expected) ? "an" : "a"} ${issue.expected}`;
    case "invalid_value":
      return `must be one of ${issue.values.join(", ")}`;
    case "too_small":
      return `must have at least ${issue.minimum} item${issue.minimum === 1 ? "" : "s"}`;
    default:
      return issue.message;
  }
}
