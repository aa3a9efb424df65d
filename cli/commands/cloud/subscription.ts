import {
  createSubscription,
  deleteSubscription,
  getSubscription,
  listSubscriptions,
  updateSubscription,
} from "../../../lib/cloud/mod.ts";
import { StoreCtlError } from "../../../lib/errors/mod.ts";
import type { Factory } from "../../factory.ts";
import { type Flag, flag } from "../../framework/params.ts";
import { type Column, command, group } from "../../framework/spec.ts";
import { TASK_COLUMNS, taskCommand } from "./wait.ts";
import { LIMIT_FLAG, required, SUBSCRIPTION_ARG } from "./common.ts";
import { DATA_FLAG, given, parseId, readBody } from "../input.ts";

const COLUMNS: readonly Column[] = [
  { header: "ID", value: "id" },
  { header: "NAME", value: "name" },
  { header: "STATUS", value: "status" },
  { header: "PROVIDER", value: "cloudDetails.0.provider" },
  { header: "REGION", value: "cloudDetails.0.regions.0.region" },
  { header: "DATABASES", value: "numberOfDatabases" },
  { header: "PAYMENT METHOD", value: "paymentMethodId" },
];

const PAYMENT_FLAG: Flag<number | undefined> = {
  kind: "parsed",
  brief: "the payment method's id (ctl cloud payment-method list shows them)",
  parse: parseId("payment method"),
  placeholder: "id",
};

/** With `--wait`: the subscription the task made or changed. */
async function finished(task: { response?: { resourceId?: number | string } }, f: Factory) {
  const id = Number(task.response?.resourceId);
  return Number.isInteger(id) ? await getSubscription(await f.cloud(), id) : task;
}

const list = command({
  summary: "list the account's subscriptions",
  flags: { limit: LIMIT_FLAG },
  output: { columns: COLUMNS, empty: "No subscriptions" },
  examples: ["ctl cloud subscription list", "ctl cloud subscription list -q '[].{id: id, name: name}' -o yaml"],
  async run({ flags }, f) {
    return await listSubscriptions(await f.cloud(), { limit: flags.limit });
  },
});

const get = command({
  summary: "show one subscription",
  args: [SUBSCRIPTION_ARG],
  output: { columns: COLUMNS },
  examples: ["ctl cloud subscription get 156400 -o json"],
  async run({ args: [id] }, f) {
    return await getSubscription(await f.cloud(), id);
  },
});

const create = taskCommand({
  summary: "create a subscription",
  description: `Create a subscription from a -d body (the API's full subscription request: cloud providers,
regions, databases…); --name, --payment-method-id, --provider and --region set or override the
common fields. --name is required unless the body has it. Without --wait this prints the task;
with --wait, the new subscription.`,
  flags: {
    name: flag.string("the subscription's name", { placeholder: "name" }),
    paymentMethodId: PAYMENT_FLAG,
    provider: flag.string("cloud provider of the first deployment, e.g. AWS or GCP", { placeholder: "provider" }),
    region: flag.string("region of the first deployment, e.g. us-east-1 (ctl cloud region list)", {
      placeholder: "region",
    }),
    data: DATA_FLAG,
  },
  output: { columns: COLUMNS },
  resolve: (task, f) => finished(task, f),
  examples: [
    "ctl cloud subscription create -d @subscription.json --wait",
    "ctl cloud subscription create --name analytics --payment-method-id 7001 --provider AWS --region eu-west-1",
  ],
  async start({ flags }, f) {
    const body: Record<string, unknown> = {
      ...await readBody(f, flags.data),
      ...given({ name: flags.name, paymentMethodId: flags.paymentMethodId }),
    };
    if (flags.provider !== undefined || flags.region !== undefined) {
      const providers = Array.isArray(body.cloudProviders) ? [...body.cloudProviders] : [];
      const first = { ...providers[0] } as Record<string, unknown>;
      if (flags.provider !== undefined) first.provider = flags.provider;
      if (flags.region !== undefined) {
        const regions = Array.isArray(first.regions) ? [...first.regions] : [];
        regions[0] = { ...regions[0], region: flags.region };
        first.regions = regions;
      }
      providers[0] = first;
      body.cloudProviders = providers;
    }
    required(body.name, "--name", 'Give --name <name>, or a "name" field in the -d body');
    return await createSubscription(await f.cloud(), body);
  },
});

const update = taskCommand({
  summary: "rename a subscription or change its payment method",
  description: `Change a subscription: --name, --payment-method-id, or the fields of a -d body (flags
override them). Without --wait this prints the task; with --wait, the changed subscription.`,
  args: [SUBSCRIPTION_ARG],
  flags: {
    name: flag.string("the new name", { placeholder: "name" }),
    paymentMethodId: PAYMENT_FLAG,
    data: DATA_FLAG,
  },
  output: { columns: COLUMNS },
  resolve: (task, f) => finished(task, f),
  examples: ["ctl cloud subscription update 156400 --name orders-prod --wait"],
  async start({ args: [id], flags }, f) {
    const changes = {
      ...await readBody(f, flags.data),
      ...given({ name: flags.name, paymentMethodId: flags.paymentMethodId }),
    };
    if (Object.keys(changes).length === 0) {
      throw new StoreCtlError("usage", "Nothing to change", {
        tips: ["Give --name, --payment-method-id, or a -d body with the fields to change"],
      });
    }
    return await updateSubscription(await f.cloud(), id, changes);
  },
});

const remove = taskCommand({
  summary: "delete a subscription (it must have no databases)",
  description: `Delete a subscription; the API refuses while it has databases (the task fails, exit 8 with
--wait). Asks for confirmation on a terminal; elsewhere give --yes.`,
  args: [SUBSCRIPTION_ARG],
  confirm: ({ args: [id] }) => `Delete subscription ${id}?`,
  output: { columns: TASK_COLUMNS },
  examples: ["ctl cloud subscription delete 156400 --yes --wait"],
  async start({ args: [id] }, f) {
    return await deleteSubscription(await f.cloud(), id);
  },
});

/** `ctl cloud subscription …`. */
export default group("manage the account's subscriptions", { list, get, create, update, delete: remove });
