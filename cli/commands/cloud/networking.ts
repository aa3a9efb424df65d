import { getPrivateServiceConnect, listPeerings, listTransitGateways } from "../../../lib/cloud/mod.ts";
import { command, group } from "../../framework/spec.ts";
import { required, SUBSCRIPTION_FLAG, SUBSCRIPTION_TIP, subscriptionListCommand } from "./common.ts";

/** `ctl cloud peering …`. */
export const peering = group("list a subscription's VPC peerings", {
  list: subscriptionListCommand({
    summary: "list a subscription's VPC peerings",
    columns: [
      { header: "ID", value: "vpcPeeringId" },
      { header: "STATUS", value: "status" },
      { header: "VPC", value: (p) => p.vpcUid ?? p.vpcId },
      { header: "CIDR", value: (p) => p.vpcCidr ?? (Array.isArray(p.vpcCidrs) ? p.vpcCidrs.join(", ") : undefined) },
      { header: "CLOUD ACCOUNT", value: (p) => p.awsAccountId ?? p.projectUid },
    ],
    empty: "No VPC peerings in this subscription",
    examples: ["ctl cloud peering list --subscription 156400"],
    list: listPeerings,
  }),
});

/** `ctl cloud private-service-connect …`. */
export const privateServiceConnect = group("show a subscription's private service connect", {
  get: command({
    summary: "show a subscription's private service connect endpoints",
    flags: { subscription: SUBSCRIPTION_FLAG },
    output: {
      columns: [
        { header: "ID", value: "id" },
        { header: "STATUS", value: "status" },
        { header: "HOST NAME", value: "connectionHostName" },
        { header: "SERVICE ATTACHMENT", value: "serviceAttachmentName" },
      ],
      empty: "No private service connect endpoints in this subscription",
    },
    examples: ["ctl cloud private-service-connect get --subscription 156400"],
    async run({ flags }, f) {
      const subscription = required(flags.subscription, "--subscription", SUBSCRIPTION_TIP);
      return await getPrivateServiceConnect(await f.cloud(), subscription);
    },
  }),
});

/** `ctl cloud transit-gateway …`. */
export const transitGateway = group("list a subscription's transit gateways", {
  list: subscriptionListCommand({
    summary: "list a subscription's transit gateway attachments",
    columns: [
      { header: "ID", value: "id" },
      { header: "GATEWAY", value: "awsTgwUid" },
      { header: "ATTACHMENT", value: "attachmentStatus" },
      { header: "STATUS", value: "status" },
    ],
    empty: "No transit gateways in this subscription",
    examples: ["ctl cloud transit-gateway list --subscription 156400"],
    list: listTransitGateways,
  }),
});
