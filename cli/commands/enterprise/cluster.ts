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
import { HOST_STATS_COLUMNS, keyedRows, readHealth, requestBody, requireChanges, showsTable } from "./common.ts";
import { DATA_FLAG } from "../input.ts";

/** The table's health text, kept off the object so that JSON and YAML stay as the API gave them. */
const HEALTH = Symbol("health");

/**
 * STATUS: the cluster's `status` and `state` when it has them (the specification's shape), otherwise
 * the health `get` read from its nodes, databases and alerts (a real cluster has neither).
 */
const STATUS: Column = {
  header: "STATUS",
  value: (row) => {
    const given = [...new Set([row.status, row.state].filter((v) => v !== undefined))];
    return given.length > 0 ? given.join(" / ") : (row as { [HEALTH]?: string })[HEALTH];
  },
};

const COLUMNS: readonly Column[] = [
  { header: "NAME", value: "name" },
  STATUS,
  { header: "RACK AWARE", value: "rack_aware" },
  { header: "EMAIL ALERTS", value: "email_alerts" },
  { header: "CREATED", value: "created_time" },
];

const get = command({
  summary: "show the cluster's name, health and settings",
  description: `Show the cluster's name, health and settings. A real cluster object has no status:
in a table, STATUS tells the health read from the nodes, databases and raised alerts
("healthy: 3/3 nodes active, 4/4 databases active, no active alerts"). JSON and YAML show the
cluster as the API gives it, in one request.`,
  output: { columns: COLUMNS },
  examples: ["ctl enterprise cluster get", "ctl enterprise cluster get -q name --raw"],
  async run({ output }, f) {
    const client = await f.enterprise();
    const cluster = await getCluster(client);
    if (cluster.status === undefined && cluster.state === undefined && showsTable(output, f)) {
      const { health, summary } = await readHealth(f, client);
      Object.defineProperty(cluster, HEALTH, { value: `${health}: ${summary}`, enumerable: false });
    }
    return cluster;
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
  output: { columns: HOST_STATS_COLUMNS },
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
      // A real alert keeps its threshold in change_value (global_threshold; threshold for a database's).
      {
        header: "THRESHOLD",
        value: (row) => {
          const change = (row.change_value ?? {}) as Record<string, unknown>;
          return change.global_threshold ?? change.threshold ?? row.threshold;
        },
      },
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
