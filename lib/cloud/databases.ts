import type { CloudClient } from "./client.ts";
import { listAll, type ListOptions } from "./paging.ts";
import type { CloudTask } from "./tasks.ts";

/**
 * A cloud database, addressed by its subscription and database ids; fields beyond these pass
 * through. It is sized by `datasetSizeInGb`, or by the deprecated `memoryLimitInGb`.
 */
export interface CloudDatabase {
  readonly databaseId: number;
  readonly name: string;
  readonly datasetSizeInGb?: number;
  readonly memoryLimitInGb?: number;
  readonly [field: string]: unknown;
}

/** What a create, update or delete answers: the task that carries it out. */
export type TaskReference = Pick<CloudTask, "taskId" | "status" | "commandType" | "description">;

const base = (subscription: number) => `/subscriptions/${subscription}/databases`;

/** The databases of a subscription, every page of them. */
export function listDatabases(
  client: CloudClient,
  subscription: number,
  options?: ListOptions,
): Promise<CloudDatabase[]> {
  return listAll(
    client,
    base(subscription),
    (b) => (b as { subscription?: { databases?: CloudDatabase[] }[] })?.subscription?.flatMap((s) => s.databases ?? []),
    options,
  );
}

/** One database. */
export function getDatabase(client: CloudClient, subscription: number, database: number): Promise<CloudDatabase> {
  return client.get<CloudDatabase>(`${base(subscription)}/${database}`);
}

/** Starts creating a database: a `name`, and `datasetSizeInGb` (or the deprecated `memoryLimitInGb`). */
export function createDatabase(
  client: CloudClient,
  subscription: number,
  body: { name: string; readonly [field: string]: unknown },
): Promise<TaskReference> {
  return client.send<TaskReference>("POST", base(subscription), body);
}

/** Starts changing a database. */
export function updateDatabase(
  client: CloudClient,
  subscription: number,
  database: number,
  changes: Readonly<Record<string, unknown>>,
): Promise<TaskReference> {
  return client.send<TaskReference>("PUT", `${base(subscription)}/${database}`, changes);
}

/** Starts deleting a database. */
export function deleteDatabase(client: CloudClient, subscription: number, database: number): Promise<TaskReference> {
  return client.send<TaskReference>("DELETE", `${base(subscription)}/${database}`);
}
