import {
  type CloudClient,
  type CloudRecord,
  getPrivateServiceConnect,
  listPeerings,
  listTransitGateways,
  type TaskWaiter,
} from "../../../lib/cloud/mod.ts";
import type { Factory } from "../../factory.ts";
import { type Column, command, group } from "../../framework/spec.ts";
import { LIMIT_FLAG, SUBSCRIPTION_FLAG } from "./common.ts";
import { WAIT_LIMIT_FLAGS } from "../../framework/waiting.ts";
import { waitFor } from "./wait.ts";

// The real API answers each networking read with a task whose result holds the data: these
// commands wait for it (with the spinner and limits of --wait) and print what it found.

const FLAGS = { subscription: SUBSCRIPTION_FLAG, ...WAIT_LIMIT_FLAGS };

/** A networking read of the subscription in `flags`, waiting for its task as `--wait` does. */
async function read<T>(
  f: Factory,
  flags: { subscription: number; waitTimeout: number; waitInterval: number },
  reader: (client: CloudClient, subscription: number, wait: TaskWaiter) => Promise<T>,
): Promise<T> {
  return await reader(await f.cloud(), flags.subscription, (taskId) => waitFor(f, taskId, flags, true));
}

/** A list of a subscription's networking records. */
function networkingList(spec: {
  summary: string;
  columns: readonly Column[];
  empty: string;
  example: string;
  list: (client: CloudClient, subscription: number, wait: TaskWaiter) => Promise<CloudRecord[]>;
}) {
  return command({
    summary: spec.summary,
    flags: { ...FLAGS, limit: LIMIT_FLAG },
    output: { columns: spec.columns, empty: spec.empty },
    examples: [spec.example],
    async run({ flags }, f) {
      return (await read(f, flags, spec.list)).slice(0, flags.limit);
    },
  });
}

/** `ctl cloud peering …`. */
export const peering = group("list a subscription's VPC peerings", {
  list: networkingList({
    summary: "list a subscription's VPC peerings",
    columns: [
      { header: "ID", value: "vpcPeeringId" },
      { header: "STATUS", value: "status" },
      { header: "VPC", value: (p) => p.vpcUid ?? p.networkName },
      { header: "CIDR", value: (p) => p.vpcCidr ?? (Array.isArray(p.vpcCidrs) ? p.vpcCidrs.join(", ") : undefined) },
      { header: "CLOUD ACCOUNT", value: (p) => p.awsAccountId ?? p.projectUid },
      { header: "REGION", value: "regionName" },
    ],
    empty: "No VPC peerings in this subscription",
    example: "ctl cloud peering list --subscription 156400",
    list: listPeerings,
  }),
});

/** `ctl cloud private-service-connect …`. */
export const privateServiceConnect = group("show a subscription's private service connect", {
  get: command({
    summary: "show a subscription's private service connect service",
    flags: FLAGS,
    output: {
      columns: [
        { header: "ID", value: "id" },
        { header: "STATUS", value: "status" },
        { header: "HOST NAME", value: "connectionHostName" },
        { header: "SERVICE ATTACHMENT", value: "serviceAttachmentName" },
      ],
      empty: "No private service connect service in this subscription",
    },
    examples: ["ctl cloud private-service-connect get --subscription 156400"],
    async run({ flags }, f) {
      return await read(f, flags, getPrivateServiceConnect) ?? [];
    },
  }),
});

/** `ctl cloud transit-gateway …`. */
export const transitGateway = group("list a subscription's transit gateways", {
  list: networkingList({
    summary: "list a subscription's transit gateway attachments",
    columns: [
      { header: "ID", value: "id" },
      { header: "GATEWAY", value: "awsTgwUid" },
      { header: "ATTACHMENT", value: "attachmentStatus" },
      { header: "STATUS", value: "status" },
      { header: "AWS ACCOUNT", value: "awsAccountId" },
      {
        header: "CIDRS",
        value: (t) => Array.isArray(t.cidrs) ? t.cidrs.map((c) => c.cidrAddress).join(", ") : undefined,
      },
    ],
    empty: "No transit gateways in this subscription",
    example: "ctl cloud transit-gateway list --subscription 156400",
    list: listTransitGateways,
  }),
});
