import {
  clusterAlerts,
  clusterCertificates,
  clusterStats,
  describeCertificate,
  getCluster,
  updateCluster,
} from "../../../lib/enterprise/mod.ts";
import { flag } from "../../framework/params.ts";
import { type Column, command, group } from "../../framework/spec.ts";
import { DATA_FLAG, keyedRows, requestBody, requireChanges, STATS_COLUMNS } from "./common.ts";

const COLUMNS: readonly Column[] = [
  { header: "NAME", value: "name" },
  { header: "STATUS", value: "status" },
  { header: "STATE", value: "state" },
  { header: "RACK AWARE", value: "rack_aware" },
  { header: "EMAIL ALERTS", value: "email_alerts" },
  { header: "CREATED", value: "created_time" },
];

const get = command({
  summary: "show the cluster's name, status and settings",
  output: { columns: COLUMNS },
  examples: ["ctl enterprise cluster get", "ctl enterprise cluster get -q state --raw"],
  async run(_input, f) {
    return await getCluster(await f.enterprise());
  },
});

const update = command({
  summary: "change the cluster's name or other settings",
  flags: { name: flag.string("new cluster name", { placeholder: "name" }), data: DATA_FLAG },
  output: { columns: COLUMNS },
  examples: [
    "ctl enterprise cluster update --name cluster.example.com",
    `ctl enterprise cluster update -d '{"email_alerts":true}'`,
  ],
  async run({ flags }, f) {
    const body = await requestBody(f, flags.data, { name: flags.name });
    requireChanges(body, "--name");
    return await updateCluster(await f.enterprise(), body);
  },
});

const stats = command({
  summary: "show the cluster's statistics of the last interval",
  output: { columns: STATS_COLUMNS },
  examples: ["ctl enterprise cluster stats", "ctl enterprise cluster stats -q free_memory"],
  async run(_input, f) {
    return await clusterStats(await f.enterprise());
  },
});

const certificates = command({
  summary: "show the cluster's certificates: subject and expiry; the PEM with -o json",
  output: {
    rows: keyedRows("name"),
    columns: [
      { header: "NAME", value: "name" },
      { header: "SUBJECT", value: (row) => describeCertificate(String(row.value))?.subject },
      { header: "EXPIRES", value: (row) => describeCertificate(String(row.value))?.notAfter },
    ],
    empty: "No certificates",
  },
  examples: ["ctl enterprise cluster certificates", "ctl enterprise cluster certificates -q proxy_cert --raw"],
  async run(_input, f) {
    return await clusterCertificates(await f.enterprise());
  },
});

const alerts = command({
  summary: "show the cluster's alert settings and states",
  output: {
    rows: keyedRows("name"),
    columns: [
      { header: "ALERT", value: "name" },
      { header: "ENABLED", value: "enabled" },
      { header: "RAISED", value: "state" },
      { header: "SEVERITY", value: "severity" },
      { header: "THRESHOLD", value: "threshold" },
      { header: "CHANGED", value: "change_time" },
    ],
    empty: "No alerts",
  },
  examples: ["ctl enterprise cluster alerts", "ctl enterprise cluster alerts -q 'node_memory'"],
  async run(_input, f) {
    return await clusterAlerts(await f.enterprise());
  },
});

/** `ctl enterprise cluster …`: the cluster itself. */
export default group("show and change the cluster, its statistics, certificates and alerts", {
  get,
  update,
  stats,
  certificates,
  alerts,
});
