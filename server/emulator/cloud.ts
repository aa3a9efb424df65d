import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { TaskBook, type TaskRequest } from "./cloud_tasks.ts";
import { checkBody, SubscriptionCreate } from "./create_bodies.ts";
import { type CloudData, cloudDatabase, cloudFixture, MEMORY_QUOTA_GB, subscription } from "./cloud_fixture.ts";
import type { Json } from "./fixture.ts";
import { createRandom } from "./random.ts";
import { isName, isPositiveNumber, paginate, parseId, readObject, unknownField } from "./requests.ts";

/** Settings of the cloud side. */
export interface CloudOptions {
  readonly seed: number;
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly taskDelayMs: number;
  /** Requests allowed per API key and minute; 0 means no limit. */
  readonly rateLimitPerMinute: number;
  readonly now: () => number;
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  404: "Not Found",
  405: "Method Not Allowed",
  413: "Payload Too Large",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** The cloud API's error body. */
export function cloudErrorBody(status: number, message: string, path: string): Json {
  return { timestamp: new Date().toISOString(), status, error: STATUS_TEXT[status] ?? "Error", message, path };
}

const DATABASE_FIELDS = ["name", "memoryLimitInGb", "replication", "dataPersistence", "dataEvictionPolicy", "password"];

/**
 * The cloud API under `/v1`: key + secret headers, asynchronous creates, updates and deletes
 * tracked as tasks, offset/limit lists, and a per-minute request budget.
 */
export function cloudRoutes(options: CloudOptions): { app: Hono; reset(): void } {
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
    );
  };
  reset();

  const fail = (c: Context, status: ContentfulStatusCode, message: string) =>
    c.json(cloudErrorBody(status, message, c.req.path), status);
  const notFound = (c: Context, what: string) => fail(c, 404, `${what} not found`);
  const base = (c: Context) => `${new URL(c.req.url).origin}/v1`;
  const accepted = (c: Context, request: TaskRequest) => c.json(tasks.receipt(tasks.submit(request), base(c)), 202);
  const listOr = (c: Context, items: readonly Json[], wrap: (page: Json[]) => Json) => {
    const page = paginate(c, items);
    return typeof page === "string" ? fail(c, 400, page) : c.json(wrap(page));
  };

  // Not strict: the base ends in /v1, so `GET /` arrives as `/v1/` or `/v1`.
  const app = new Hono({ strict: false });
  app.use("*", authenticate(options, fail));
  app.use("*", rateLimit(options, fail));
  app.use("*", async (_c, next) => {
    tasks.settle();
    await next();
  });

  app.get(
    "/",
    (c) => c.json({ account: { ...data.account, key: { ...data.account.key, accountId: data.account.id } } }),
  );
  app.get(
    "/payment-methods",
    (c) => listOr(c, data.paymentMethods, (page) => ({ accountId: data.account.id, paymentMethods: page })),
  );
  app.get("/regions", (c) => listOr(c, data.regions, (page) => ({ regions: page })));
  app.get("/acl/users", (c) => listOr(c, data.aclUsers, (page) => ({ accountId: data.account.id, users: page })));
  app.get("/acl/roles", (c) => listOr(c, data.aclRoles, (page) => ({ accountId: data.account.id, roles: page })));
  app.get(
    "/acl/redisRules",
    (c) => listOr(c, data.aclRedisRules, (page) => ({ accountId: data.account.id, redisRules: page })),
  );
  app.get("/tasks", (c) => listOr(c, tasks.list(base(c)), (page) => page as unknown as Json));
  app.get("/tasks/:taskId", (c) => {
    const task = tasks.view(c.req.param("taskId"), base(c));
    return task ? c.json(task) : notFound(c, `Task ${c.req.param("taskId")}`);
  });

  const withDatabaseCount = (s: Json) => ({ ...s, numberOfDatabases: data.databases.get(s.id)?.size ?? 0 });
  app.get(
    "/subscriptions",
    (c) =>
      listOr(
        c,
        [...data.subscriptions.values()].map(withDatabaseCount),
        (page) => ({ accountId: data.account.id, subscriptions: page }),
      ),
  );

  app.post("/subscriptions", async (c) => {
    const body = await readObject(c);
    if (typeof body === "string") return fail(c, 400, body);
    const problem = checkBody(SubscriptionCreate, body);
    if (typeof problem === "string") return fail(c, 400, problem);
    const id = data.nextId++;
    const region = {
      name: body.cloudProviders?.[0]?.regions?.[0]?.region ?? "us-east-1",
      provider: body.cloudProviders?.[0]?.provider ?? "AWS",
    };
    return accepted(c, {
      commandType: "subscriptionCreateRequest",
      description: "Task request received and is being queued for processing.",
      resourceId: id,
      apply: () => {
        data.subscriptions.set(id, subscription(id, body.name, region));
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
      description: "Task request received and is being queued for processing.",
      resourceId: found.sub.id,
      apply: () => Object.assign(found.sub, body),
    });
  });

  app.delete("/subscriptions/:id", (c) => {
    const found = findSubscription(c);
    if (found instanceof Response) return found;
    const error = found.dbs.size > 0
      ? {
        type: "SUBSCRIPTION_NOT_EMPTY",
        status: "400 BAD_REQUEST",
        description: `Subscription ${found.sub.id} still has ${found.dbs.size} database(s); delete them first`,
      }
      : undefined;
    return accepted(c, {
      commandType: "subscriptionDeleteRequest",
      description: "Task request received and is being queued for processing.",
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
    return listOr(c, [...found.dbs.values()], (page) => ({
      accountId: data.account.id,
      subscription: [{ subscriptionId: found.sub.id, numberOfDatabases: found.dbs.size, databases: page }],
    }));
  });

  app.post("/subscriptions/:id/databases", async (c) => {
    const found = findSubscription(c);
    if (found instanceof Response) return found;
    const body = await readObject(c);
    if (typeof body === "string") return fail(c, 400, body);
    if (!isName(body.name)) return fail(c, 400, "Field 'name' is required and must be a non-empty string");
    if (!isPositiveNumber(body.memoryLimitInGb)) {
      return fail(c, 400, "Field 'memoryLimitInGb' is required and must be a number greater than 0");
    }
    const id = data.nextId++;
    const region = { name: found.sub.cloudDetails[0].regions[0].region, provider: found.sub.cloudDetails[0].provider };
    return accepted(c, {
      commandType: "createDatabaseRequest",
      description: "Task request received and is being queued for processing.",
      resourceId: id,
      additionalResourceId: found.sub.id,
      error: databaseError(body, found.dbs),
      apply: () =>
        found.dbs.set(id, {
          ...cloudDatabase(id, body.name, body.memoryLimitInGb, region, createRandom(id)),
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
    if ("memoryLimitInGb" in body && !isPositiveNumber(body.memoryLimitInGb)) {
      return fail(c, 400, "Field 'memoryLimitInGb' must be a number greater than 0");
    }
    const others = new Map([...found.dbs].filter(([id]) => id !== found.db.databaseId));
    return accepted(c, {
      commandType: "updateDatabaseRequest",
      description: "Task request received and is being queued for processing.",
      resourceId: found.db.databaseId,
      additionalResourceId: found.sub.id,
      error: databaseError(body, others),
      apply: () => Object.assign(found.db, body, { lastModified: new Date(options.now()).toISOString() }),
    });
  });

  app.delete("/subscriptions/:id/databases/:dbId", (c) => {
    const found = findDatabase(c);
    if (found instanceof Response) return found;
    return accepted(c, {
      commandType: "deleteDatabaseRequest",
      description: "Task request received and is being queued for processing.",
      resourceId: found.db.databaseId,
      additionalResourceId: found.sub.id,
      apply: () => found.dbs.delete(found.db.databaseId),
    });
  });

  const networking = (key: string, make: (subId: number) => Json[]) => (c: Context) => {
    const found = findSubscription(c);
    return found instanceof Response
      ? found
      : listOr(c, make(found.sub.id), (page) => ({ subscriptionId: found.sub.id, [key]: page }));
  };
  app.get(
    "/subscriptions/:id/peerings",
    networking("peerings", (id) => [
      {
        vpcPeeringId: id % 1000 + 1,
        awsAccountId: "123456789012",
        vpcUid: `vpc-${id.toString(16)}`,
        vpcCidr: "10.10.0.0/16",
        status: "active",
      },
    ]),
  );
  app.get(
    "/subscriptions/:id/privateServiceConnect",
    networking("privateServiceConnect", (id) => [
      {
        id: id % 1000 + 10,
        connectionHostName: `psc-${id}.example.net`,
        serviceAttachmentName: `sa-${id}`,
        status: "active",
      },
    ]),
  );
  app.get(
    "/subscriptions/:id/transitGateway",
    networking("transitGateways", (id) => [
      { id: id % 1000 + 20, awsTgwUid: `tgw-${id.toString(16)}`, attachmentStatus: "available", status: "available" },
    ]),
  );

  app.notFound((c) => fail(c, 404, `No endpoint ${c.req.method} ${c.req.path}`));
  return { app, reset };
}

/** Why a create or update cannot complete, reported in the task as the real service does. */
function databaseError(body: Json, others: Map<number, Json>) {
  if (isPositiveNumber(body.memoryLimitInGb) && body.memoryLimitInGb > MEMORY_QUOTA_GB) {
    return {
      type: "DATABASE_MEMORY_LIMIT_EXCEEDED",
      status: "400 BAD_REQUEST",
      description:
        `memoryLimitInGb ${body.memoryLimitInGb} is above the subscription's per-database quota of ${MEMORY_QUOTA_GB} GB`,
    };
  }
  if (isName(body.name) && [...others.values()].some((db) => db.name === body.name)) {
    return {
      type: "DATABASE_NAME_ALREADY_EXISTS",
      status: "409 CONFLICT",
      description: `A database named '${body.name}' already exists in this subscription`,
    };
  }
  return undefined;
}

function pick(body: Json, keys: readonly string[]): Json {
  return Object.fromEntries(Object.entries(body).filter(([k]) => keys.includes(k) && k !== "password"));
}

type Fail = (c: Context, status: ContentfulStatusCode, message: string) => Response;

function authenticate(options: CloudOptions, fail: Fail) {
  return async (c: Context, next: () => Promise<void>) => {
    const key = c.req.header("x-api-key");
    const secret = c.req.header("x-api-secret-key");
    if (!key || !secret) return fail(c, 401, "Missing x-api-key or x-api-secret-key header");
    if (key !== options.apiKey || secret !== options.apiSecret) return fail(c, 401, "Invalid API key or secret");
    return await next();
  };
}

/** A fixed one-minute window per key, like the real service's documented budget. */
function rateLimit(options: CloudOptions, fail: Fail) {
  let window = -1;
  let used = 0;
  return async (c: Context, next: () => Promise<void>) => {
    if (options.rateLimitPerMinute > 0) {
      const now = options.now();
      if (Math.floor(now / 60_000) !== window) {
        window = Math.floor(now / 60_000);
        used = 0;
      }
      if (++used > options.rateLimitPerMinute) {
        c.header("retry-after", String(Math.ceil(((window + 1) * 60_000 - now) / 1000)));
        return fail(c, 429, `Rate limit of ${options.rateLimitPerMinute} requests per minute exceeded`);
      }
    }
    return await next();
  };
}
