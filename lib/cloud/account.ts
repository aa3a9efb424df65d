import type { CloudClient } from "./client.ts";
import { type ListOptions, readList } from "./paging.ts";

/** A record of the cloud API whose fields pass through as the API sends them. */
export type CloudRecord = Readonly<Record<string, unknown>>;

/** The account the API key belongs to (`GET /`). */
export async function getAccount(client: CloudClient): Promise<CloudRecord> {
  const body = await client.get<{ account?: CloudRecord }>("/");
  return body?.account ?? body ?? {};
}

/** The account's payment methods. */
export function listPaymentMethods(client: CloudClient, options?: ListOptions): Promise<CloudRecord[]> {
  return readList(
    client,
    "/payment-methods",
    (b) => (b as { paymentMethods?: CloudRecord[] })?.paymentMethods,
    options,
  );
}

/** The regions subscriptions can be created in. */
export function listRegions(client: CloudClient, options?: ListOptions): Promise<CloudRecord[]> {
  return readList(client, "/regions", (b) => (b as { regions?: CloudRecord[] })?.regions, options);
}

/** The account's ACL users (`/acl/users`). */
export function listAclUsers(client: CloudClient, options?: ListOptions): Promise<CloudRecord[]> {
  return readList(client, "/acl/users", (b) => (b as { users?: CloudRecord[] })?.users, options);
}

/** The account's ACL roles (`/acl/roles`). */
export function listAclRoles(client: CloudClient, options?: ListOptions): Promise<CloudRecord[]> {
  return readList(client, "/acl/roles", (b) => (b as { roles?: CloudRecord[] })?.roles, options);
}

/** The account's ACL Redis rules (`/acl/redisRules`). */
export function listAclRules(client: CloudClient, options?: ListOptions): Promise<CloudRecord[]> {
  return readList(client, "/acl/redisRules", (b) => (b as { redisRules?: CloudRecord[] })?.redisRules, options);
}
