import { listAclRoles, listAclRules, listAclUsers } from "../../../lib/cloud/mod.ts";
import { group } from "../../framework/spec.ts";
import { listCommand } from "./common.ts";

const names = (items: unknown, key: string) =>
  Array.isArray(items) ? items.map((i) => (i as Record<string, unknown>)[key]).join(", ") : undefined;

const users = listCommand({
  summary: "list the account's ACL users",
  columns: [
    { header: "ID", value: "id" },
    { header: "NAME", value: "name" },
    { header: "ROLE", value: "role" },
    { header: "STATUS", value: "status" },
  ],
  empty: "No ACL users",
  examples: ["ctl cloud acl user list"],
  list: listAclUsers,
});

const roles = listCommand({
  summary: "list the account's ACL roles",
  columns: [
    { header: "ID", value: "id" },
    { header: "NAME", value: "name" },
    { header: "RULES", value: (r) => names(r.redisRules, "ruleName") },
    { header: "USERS", value: (r) => names(r.users, "name") },
  ],
  empty: "No ACL roles",
  examples: ["ctl cloud acl role list"],
  list: listAclRoles,
});

const rules = listCommand({
  summary: "list the account's ACL Redis rules",
  columns: [
    { header: "ID", value: "id" },
    { header: "NAME", value: "name" },
    { header: "ACL", value: "acl" },
    { header: "DEFAULT", value: "isDefault" },
    { header: "STATUS", value: "status" },
  ],
  empty: "No ACL rules",
  examples: ["ctl cloud acl rule list -q '[].acl'"],
  list: listAclRules,
});

/** `ctl cloud acl …`: users, roles and Redis rules. */
export default group("list the account's access control: users, roles and rules", {
  user: group("list the account's ACL users", { list: users }),
  role: group("list the account's ACL roles", { list: roles }),
  rule: group("list the account's ACL Redis rules", { list: rules }),
});
