import { group, lazy } from "../../framework/spec.ts";

const networking = () => import("./networking.ts");

/** `ctl cloud …`: human commands for the cloud API. */
export default group("manage resources of the cloud API", {
  account: lazy("show the cloud account", () => import("./account.ts")),
  "payment-method": lazy("list the account's payment methods", () => import("./payment_method.ts")),
  region: lazy("list the cloud regions", () => import("./region.ts")),
  subscription: lazy("manage the account's subscriptions", () => import("./subscription.ts")),
  database: lazy("manage the databases of a subscription", () => import("./database.ts")),
  task: lazy("follow the cloud API's asynchronous operations", () => import("./task.ts")),
  acl: lazy("list the account's access control: users, roles and rules", () => import("./acl.ts")),
  peering: lazy("list a subscription's VPC peerings", async () => ({ default: (await networking()).peering })),
  "private-service-connect": lazy(
    "show a subscription's private service connect",
    async () => ({ default: (await networking()).privateServiceConnect }),
  ),
  "transit-gateway": lazy(
    "list a subscription's transit gateways",
    async () => ({ default: (await networking()).transitGateway }),
  ),
});
