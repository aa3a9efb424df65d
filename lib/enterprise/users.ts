import type { EnterpriseClient } from "./client.ts";

/** A user of the cluster's management API. Fields beyond these pass through. */
export interface User {
  readonly uid: number;
  readonly name?: string;
  readonly email?: string;
  readonly role?: string;
  readonly [field: string]: unknown;
}

/** A management role. */
export interface Role {
  readonly uid: number;
  readonly name: string;
  readonly management?: string;
  readonly [field: string]: unknown;
}

/** A Redis ACL: a named rule string such as `+@read ~*`. */
export interface RedisAcl {
  readonly uid: number;
  readonly name: string;
  readonly acl: string;
  readonly [field: string]: unknown;
}

/** Every user. */
export function listUsers(client: EnterpriseClient): Promise<User[]> {
  return client.get<User[]>("/v1/users");
}

/** One user. */
export function getUser(client: EnterpriseClient, uid: number): Promise<User> {
  return client.get<User>(`/v1/users/${uid}`);
}

/** Creates a user; the API requires `email` and `password` (which it never shows again). */
export function createUser(
  client: EnterpriseClient,
  body: { email: string; password: string; readonly [field: string]: unknown },
): Promise<User> {
  return client.send<User>("POST", "/v1/users", body);
}

/** Every management role. */
export function listRoles(client: EnterpriseClient): Promise<Role[]> {
  return client.get<Role[]>("/v1/roles");
}

/** Every Redis ACL. */
export function listRedisAcls(client: EnterpriseClient): Promise<RedisAcl[]> {
  return client.get<RedisAcl[]>("/v1/redis_acls");
}
