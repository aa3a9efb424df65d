import { group, lazy } from "../../framework/spec.ts";

/** `ctl enterprise …`: human commands for the enterprise (cluster) API. */
export default group(
  "manage an enterprise cluster",
  {
    status: lazy(
      "check that the cluster answers, accepts the credentials, and is healthy",
      () => import("./status.ts"),
    ),
    cluster: lazy("show and change the cluster, its statistics, certificates and alerts", () => import("./cluster.ts")),
    node: lazy("manage the cluster's nodes", () => import("./node.ts")),
    action: lazy("follow long-running cluster operations (node removals…)", () => import("./action.ts")),
    database: lazy("manage the cluster's databases", () => import("./database.ts")),
    user: lazy("manage the cluster's users", () => import("./user.ts")),
    role: lazy("list the management roles", () => import("./role.ts")),
    acl: lazy("list the Redis ACLs", () => import("./acl.ts")),
    crdb: lazy("manage active-active databases", () => import("./crdb.ts")),
    "crdb-task": lazy("list active-active tasks", () => import("./crdb_task.ts")),
    log: lazy("list the cluster's event log", () => import("./log.ts")),
    "support-package": lazy(
      "download and shrink diagnostic support packages",
      () => import("./support_package/mod.ts"),
    ),
  },
  `Manage an enterprise cluster through its REST API (HTTP Basic, paths under /v1), with the
enterprise profile or the STORE_ENTERPRISE_* variables. Ids are numeric (crdbs: a guid) and are
checked before any request. For anything these commands do not cover: ctl api enterprise.

Examples:
  ctl enterprise status
  ctl enterprise database create --name cache --memory-size 1GiB
  ctl enterprise node list -o json`,
);
