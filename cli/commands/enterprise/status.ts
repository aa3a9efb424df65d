import { getBootstrap, getCluster } from "../../../lib/enterprise/mod.ts";
import { StoreCtlError } from "../../../lib/errors/mod.ts";
import { command } from "../../framework/spec.ts";
import { readHealth } from "./common.ts";

/** The same failure with `message` in front of its own, keeping its code (and so its exit code and tips). */
function explain(error: unknown, message: string, tips: readonly string[] = []): unknown {
  if (!(error instanceof StoreCtlError)) return error;
  return new StoreCtlError(error.code, `${message}: ${error.message}`, {
    status: error.status,
    tips: [...error.tips, ...tips],
    cause: error,
    reason: error.reason,
    details: error.details,
  });
}

/** `ctl enterprise status`: is the cluster there, does it accept the credentials, and is it healthy? */
export default command({
  summary: "check that the cluster answers, accepts the credentials, and is healthy",
  description: `Check the cluster in two steps and say which one fails and why:
1. GET /v1/bootstrap, which a cluster answers without credentials: is the URL a cluster, reachable,
   with a certificate ctl trusts?
2. GET /v1/cluster with the credentials: does the cluster accept them?
Then report its health, read from what a cluster returns: its nodes' and databases' status and
the raised (enabled) alerts of the cluster, its nodes and databases — "healthy: 3/3 nodes
active, 4/4 databases active, no active alerts", or "degraded: …" naming what is not, or
"unknown" when a part could not be read (with a warning). Exits 0 when both steps pass,
whatever the health (see it with -q health --raw); otherwise with the code of the failure
(10 network or TLS, 11 timeout, 4 credentials…).`,
  output: {
    columns: [
      { header: "CLUSTER", value: "cluster" },
      { header: "HEALTH", value: (row) => `${row.health}: ${row.summary}` },
      { header: "VERSION", value: "software_version" },
      { header: "USER", value: "user" },
      { header: "URL", value: "url" },
      { header: "BOOTSTRAP", value: "bootstrap" },
    ],
  },
  examples: ["ctl enterprise status", "ctl enterprise status -p lab -o json"],
  async run(_input, f) {
    const client = await f.enterprise();
    const creds = f.used.enterprise;
    const url = creds?.deployment === "enterprise" ? creds.url : client.http.url({ path: "" });
    const user = creds?.deployment === "enterprise" ? creds.username : undefined;
    let bootstrap;
    try {
      bootstrap = await getBootstrap(client);
    } catch (error) {
      const answered = error instanceof StoreCtlError && error.status !== undefined;
      throw explain(
        error,
        answered
          ? `${url} answered GET /v1/bootstrap with an error, so it may not be a cluster's API (credentials not checked)`
          : `The cluster at ${url} is not reachable (credentials not checked)`,
        answered ? ["A cluster's API listens on https://<host>:9443 by default: check the URL"] : [],
      );
    }
    const state = bootstrap?.bootstrap_status?.state;
    const version = bootstrap?.local_node_info?.software_version;
    const reached = `The cluster at ${url} answers (bootstrap ${state ?? "state unknown"}${
      version ? `, version ${version}` : ""
    })`;
    let cluster;
    try {
      cluster = await getCluster(client);
    } catch (error) {
      const rejected = error instanceof StoreCtlError && error.code === "auth";
      throw explain(error, rejected ? `${reached}, but rejects the credentials of ${user}` : reached);
    }
    if (state !== undefined && state !== "completed") {
      f.warn(`the node's bootstrap is '${state}', not 'completed': it may not be part of a cluster yet`);
    }
    const health = await readHealth(f, client, cluster);
    return {
      url,
      bootstrap: state,
      software_version: version,
      user,
      cluster: cluster.name,
      // Only a cluster of the specification's shape has these; a real one does not.
      ...(cluster.status !== undefined && { cluster_status: cluster.status }),
      ...(cluster.state !== undefined && { cluster_state: cluster.state }),
      ...health,
    };
  },
});
