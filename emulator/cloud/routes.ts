import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  type CloudData,
  cloudDatabase,
  cloudFixture,
  MEMORY_QUOTA_GB,
  networking,
  placementOf,
  subscription,
} from "./fixture.ts";
import { authenticate, cloudErrorBody, rateLimit } from "./guards.ts";
import { NEW_TASK_404_READS, TaskBook, type TaskRequest } from "./tasks.ts";
import { checkBody, SubscriptionCreate } from "../create_bodies.ts";
import type { Json } from "../fixture.ts";
import type { Quirk } from "../quirks.ts";
import { createRandom } from "../random.ts";
import { isName, isPositiveNumber, paginate, parseId, readObject, unknownField } from "../requests.ts";

export { cloudErrorBody };

/** Settings of the cloud side. */
export interface CloudOptions {
  readonly seed: number;
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly taskDelayMs: number;
  /** Requests allowed per API key and minute; 0 means no limit. */
  readonly rateLimitPerMinute: number;
  readonly quirks: ReadonlySet<Quirk>;
  readonly now: () => number;
}

/** The two ways a database is sized: the current field and the deprecated one. */
const SIZES = ["datasetSizeInGb", "memoryLimitInGb"] as const;
const DATABASE_FIELDS = ["name", ...SIZES, "replication", "dataPersistence", "dataEvictionPolicy", "password"];

/**
 * The cloud API under `/v1`: key + secret headers, asynchronous creates, updates and deletes
 * tracked as tasks, one paged list (a subscription's databases), and a per-minute request budget.
 * The real API's quirks (`options.quirks`) are reproduced on demand.
 */
export function cloudRoutes(options: CloudOptions): { app: Hono; reset(): void } {
  const quirks = options.quirks;
  let data: CloudData;
  let tasks: TaskBook;
  const reset = () => {
    data = cloudFixture(options.seed);
    const random = createRandom(options.seed + 2);
    const hex = (n: number) => Array.from({ length: n }, () => random.int(0, 15).toString(16)).join("");
    tasks = new TaskBook(
      options.taskDelayMs,
      options.now,
      () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`,
      quirks.has("task-404") ? NEW_TASK_404_READS : 0,
    );
  };
  reset();

  const fail = (c: Context, status: ContentfulStatusCode, message: string) =>
    c.json(cloudErrorBody(status, message, c.req.path), status);
  const notFound = (c: Context, what: string) => fail(c, 404, `${what} not found`);
  const base = (c: Context) => `${new URL(c.req.url).origin}/v1`;
  const accepted = (c: Context, request: TaskRequest) => c.json(tasks.receipt(tasks.submit(request), base(c)), 202);

  // Not strict: the base ends in /v1, so `GET /` arrives as `/v1/` or `/v1`.
  const app = new Hono({ strict: false });
  app.use("*", authenticate(options, fail));
  app.use("*", rateLimit(options, fail));
  app.use("*", async (_c, next) => {
    tasks.settle();
    await next();
  });

  // Only a subscription's databases are paged; the other lists ignore offset and limit, as the real API does.
  app.get("/", (c) => c.json({ account: data.account }));
  app.get("/payment-methods", (c) => c.json({ accountId: data.account.id, paymentMethods: data.paymentMethods }));
  app.get("/regions", (c) => c.json({ regions: data.regions }));
  app.get("/acl/users", (c) => c.json({ accountId: data.account.id, users: data.aclUsers }));
  app.get("/acl/roles", (c) => c.json({ accountId: data.account.id, roles: data.aclRoles }));
  app.get("/acl/redisRules", (c) => c.json({ accountId: data.account.id, redisRules: data.aclRedisRules }));
  // A bare array, as the real API answers (its OpenAPI description says `{tasks: [...]}`).
  app.get("/tasks", (c) => c.json(tasks.list(base(c))));
  app.get("/tasks/:taskId", (c) => {
    const task = tasks.view(c.req.param("taskId"), base(c));
    return task ? c.json(task) : notFound(c, `Task ${c.req.param("taskId")}`);
  });

  const withDatabaseCount = (s: Json) => {
    const { links, ...rest } = s;
    return { ...rest, numberOfDatabases: data.databases.get(s.id)?.size ?? 0, links };
  };
  app.get("/subscriptions", (c) =>
    c.json({
      accountId: data.account.id,
      subscriptions: [...data.subscriptions.values()].map(withDatabaseCount),
      links: [],
    }));

  app.post("/subscriptions", async (c) => {
    const body = await readObject(c);
    if (typeof body === "string") return fail(c, 400, body);
    const problem = checkBody(SubscriptionCreate, body);
    if (typeof problem === "string") return fail(c, 400, problem);
    const id = data.nextId++;
    const placement = {
      region: body.cloudProviders?.[0]?.regions?.[0]?.region ?? "us-east-1",
      provider: body.cloudProviders?.[0]?.provider ?? "AWS",
    };
    return accepted(c, {
      commandType: "subscriptionCreateRequest",
      resourceId: id,
      apply: () => {
        data.subscriptions.set(id, subscription(id, body.name, placement));
        data.databases.set(id, new Map());
      },
    });
  });

  /** Looks up the subscription in the path; answers 404 itself when there is none. */
  const findSubscription = (c: Context) => {
    const id = parseId(c.req.param("id") ?? "");
    const sub = id === undefined ? undefined : data.subscriptions.get(id);
    return sub ? { sub, dbs: data.databases.get(sub.id)! } : notFound(c, `Subscription ${c.req.param("id")}`);
  };

  app.get("/subscriptions/:id", (c) => {
    const found = findSubscription(c);
    return found instanceof Response ? found : c.json(withDatabaseCount(found.sub));
  });

  app.put("/subscriptions/:id", async (c) => {
    const found = findSubscription(c);
    if (found instanceof Response) return found;
    const body = await readObject(c);
    if (typeof body === "string") return fail(c, 400, body);
    const invalid = unknownField(body, ["name", "paymentMethodId"]);
    if (invalid) return fail(c, 400, invalid);
    if ("name" in body && !isName(body.name)) return fail(c, 400, "Field 'name' must be a non-empty string");
    return accepted(c, {
      commandType: "subscriptionUpdateRequest",
      resourceId: found.sub.id,
      apply: () => Object.assign(found.sub, body),
    });
  });

  app.delete("/subscriptions/:id", (c) => {
    const found = findSubscription(c);
    if (found instanceof Response) return found;
    const error = found.dbs.size > 0
      ? {
        type: "SUBSCRIPTION_IN_USE",
        status: "400 BAD_REQUEST",
        description: `Subscription ${found.sub.id} still has ${found.dbs.size} database(s); delete them first`,
      }
      : undefined;
    return accepted(c, {
      commandType: "subscriptionDeleteRequest",
      resourceId: found.sub.id,
      error,
      apply: () => {
        data.subscriptions.delete(found.sub.id);
        data.databases.delete(found.sub.id);
      },
    });
  });

  app.get("/subscriptions/:id/databases", (c) => {
    const found = findSubscription(c);
    if (found instanceof Response) return found;
    // The list leaves the default user's password out; only a database's own record shows it.
    const all = [...found.dbs.values()].map(({ security: { password: _, ...security }, ...db }) => ({
      ...db,
      security,
    }));
    const page = paginate(c, all);
    if (typeof page === "string") return fail(c, 400, page);
    // The real API answers the page after the last one with 404.
    if (quirks.has("page-404") && page.length === 0 && Number(c.req.query("offset") ?? 0) > 0) {
      return notFound(c, `Databases of subscription ${found.sub.id} at offset ${c.req.query("offset")}`);
    }
    return c.json({
      accountId: data.account.id,
      subscription: [{ subscriptionId: found.sub.id, numberOfDatabases: all.length, databases: page, links: [] }],
      links: [],
    });
  });

  app.post("/subscriptions/:id/databases", async (c) => {
    const found = findSubscription(c);
    if (found instanceof Response) return found;
    const body = await readObject(c);
    if (typeof body === "string") return fail(c, 400, body);
    if (!isName(body.name)) return fail(c, 400, "Field 'name' is required and must be a non-empty string");
    const sizes = SIZES.filter((size) => size in body);
    if (sizes.length === 0) {
      return fail(c, 400, "Field 'datasetSizeInGb' (or the deprecated 'memoryLimitInGb') is required");
    }
    if (sizes.length === 2) return fail(c, 400, "You cannot set both 'datasetSizeInGb' and 'memoryLimitInGb'");
    if (!isPositiveNumber(body[sizes[0]])) return fail(c, 400, `Field '${sizes[0]}' must be a number greater than 0`);
    const id = data.nextId++;
    return accepted(c, {
      commandType: "databaseCreateRequest",
      resourceId: id,
      additionalResourceId: found.sub.id,
      error: databaseError(body, found.dbs),
      apply: () =>
        found.dbs.set(id, {
          ...cloudDatabase(found.sub.id, id, body.name, placementOf(found.sub), createRandom(id)),
          ...pick(body, DATABASE_FIELDS),
        }),
    });
  });

  /** Looks up the database in the path; answers 404 itself when there is none. */
  const findDatabase = (c: Context) => {
    const found = findSubscription(c);
    if (found instanceof Response) return found;
    const dbId = parseId(c.req.param("dbId") ?? "");
    const db = dbId === undefined ? undefined : found.dbs.get(dbId);
    return db ? { ...found, db } : notFound(c, `Database ${c.req.param("dbId")} in subscription ${found.sub.id}`);
  };

  app.get("/subscriptions/:id/databases/:dbId", (c) => {
    const found = findDatabase(c);
    return found instanceof Response ? found : c.json(found.db);
  });

  app.put("/subscriptions/:id/databases/:dbId", async (c) => {
    const found = findDatabase(c);
    if (found instanceof Response) return found;
    const body = await readObject(c);
    if (typeof body === "string") return fail(c, 400, body);
    const invalid = unknownField(body, DATABASE_FIELDS);
    if (invalid) return fail(c, 400, invalid);
    if ("name" in body && !isName(body.name)) return fail(c, 400, "Field 'name' must be a non-empty string");
    const sizes = SIZES.filter((size) => size in body);
    if (sizes.length === 2) return fail(c, 400, "You cannot set both 'datasetSizeInGb' and 'memoryLimitInGb'");
    if (sizes.length === 1 && !isPositiveNumber(body[sizes[0]])) {
      return fail(c, 400, `Field '${sizes[0]}' must be a number greater than 0`);
    }
    const others = new Map([...found.dbs].filter(([id]) => id !== found.db.databaseId));
    return accepted(c, {
      commandType: "databaseUpdateRequest",
      resourceId: found.db.databaseId,
      additionalResourceId: found.sub.id,
      error: databaseError(body, others),
      apply: () => {
        // A database is sized one way: a new size replaces the other field.
        if (sizes.length === 1) { for (const size of SIZES) delete found.db[size]; }
        Object.assign(found.db, body, { lastModified: new Date(options.now()).toISOString() });
      },
    });
  });

  app.delete("/subscriptions/:id/databases/:dbId", (c) => {
    const found = findDatabase(c);
    if (found instanceof Response) return found;
    return accepted(c, {
      commandType: "databaseDeleteRequest",
      resourceId: found.db.databaseId,
      additionalResourceId: found.sub.id,
      apply: () => found.dbs.delete(found.db.databaseId),
    });
  });

  // Networking reads: the real API answers each with a task whose response holds the resource.
  const networkingRead = (commandType: string, part: "peerings" | "psc" | "tgws") => (c: Context) => {
    const found = findSubscription(c);
    if (found instanceof Response) return found;
    const resource = () => networking(found.sub.id)[part];
    if (!quirks.has("networking-tasks")) return c.json(resource());
    return accepted(c, { commandType, resourceId: found.sub.id, resource });
  };
  const routes: [string[], string, "peerings" | "psc" | "tgws"][] = [
    [["peerings"], "peeringListRequest", "peerings"],
    [["private-service-connect", "privateServiceConnect"], "pscServiceGetRequest", "psc"],
    [["transitGateways", "transitGateway"], "tgwGetRequest", "tgws"],
  ];
  for (const [[documented, specSpelling], commandType, part] of routes) {
    app.get(`/subscriptions/:id/${documented}`, networkingRead(commandType, part));
    // The spec's spelling, served too unless only documented routes are wanted.
    if (specSpelling && !quirks.has("strict-routes")) {
      app.get(`/subscriptions/:id/${specSpelling}`, networkingRead(commandType, part));
    }
  }

  app.notFound((c) => fail(c, 404, `No endpoint ${c.req.method} ${c.req.path}`));
  return { app, reset };
}

/** Why a create or update cannot complete, reported in the task as the real service does. */
function databaseError(body: Json, others: Map<number, Json>) {
  const size = body.datasetSizeInGb ?? body.memoryLimitInGb;
  if (isPositiveNumber(size) && size > MEMORY_QUOTA_GB) {
    return {
      type: "DATABASE_SIZE_TOO_BIG",
      status: "400 BAD_REQUEST",
      description: `A size of ${size} GB is above the subscription's per-database quota of ${MEMORY_QUOTA_GB} GB`,
    };
  }
  if (isName(body.name) && [...others.values()].some((db) => db.name === body.name)) {
    return {
      type: "DATABASE_NAME_EXISTS",
      status: "409 CONFLICT",
      description: `A database named '${body.name}' already exists in this subscription`,
    };
  }
  return undefined;
}

/** The fields of a create body the new database keeps (never its password). */
function pick(body: Json, keys: readonly string[]): Json {
  return Object.fromEntries(Object.entries(body).filter(([k]) => keys.includes(k) && k !== "password"));
}
