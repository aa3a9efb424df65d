/**
 * `redis-cluster://` and `rediss-cluster://` URLs: a seed list of cluster nodes, with an optional
 * user and password. Parsed here without the Redis client, so configuration checks stay light.
 *
 * @module
 */

/** A parsed cluster URL. */
export interface ClusterUrl {
  readonly nodes: readonly { readonly host: string; readonly port: number }[];
  readonly tls: boolean;
  readonly username?: string;
  readonly password?: string;
}

/** Whether `url` names a Redis Cluster (its scheme; see {@link parseClusterUrl} for the rest). */
export function isClusterUrl(url: string): boolean {
  return /^rediss?-cluster:/i.test(url);
}

/**
 * Reads `redis-cluster://[user:password@]host:port,host:port,…` (`rediss-cluster://` for TLS);
 * a node without a port gets 6379, an IPv6 host goes in brackets. Throws an error saying what is
 * wrong with the URL (never its password) and how it should look.
 *
 * @example
 * ```ts
 * const { nodes, tls } = parseClusterUrl("redis-cluster://10.0.0.1:7000,10.0.0.2:7000");
 * // nodes: [{host: "10.0.0.1", port: 7000}, {host: "10.0.0.2", port: 7000}], tls: false
 * ```
 */
export function parseClusterUrl(url: string): ClusterUrl {
  const shape = "redis-cluster://[user:password@]host:port,host:port,… (rediss-cluster:// for TLS)";
  const match = /^(rediss?)-cluster:\/\/(?:([^@/]*)@)?([^/?#@]*)\/?$/i.exec(url);
  if (!match) throw new Error(`STORE_URL is not a cluster URL of the form ${shape}`);
  const [, scheme, userinfo, list] = match;
  const nodes = list.split(",").map((node) => node.trim());
  if (nodes.length === 0 || nodes.some((node) => node === "")) {
    throw new Error(`STORE_URL names no cluster node${list ? " or an empty one" : ""}: use ${shape}`);
  }
  const parsed = nodes.map((node) => {
    const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(node);
    const port = m?.[2] === undefined ? 6379 : Number(m[2]);
    if (!m || port < 1 || port > 65535) {
      throw new Error(`STORE_URL: cluster node '${node}' is not host:port (port 1-65535); use ${shape}`);
    }
    return { host: m[1].replace(/^\[(.*)\]$/, "$1"), port };
  });
  let username: string | undefined;
  let password: string | undefined;
  if (userinfo !== undefined) {
    const colon = userinfo.indexOf(":");
    try {
      username = decodeURIComponent(colon < 0 ? userinfo : userinfo.slice(0, colon)) || undefined;
      password = colon < 0 ? undefined : decodeURIComponent(userinfo.slice(colon + 1)) || undefined;
    } catch {
      throw new Error(`STORE_URL: the user or password is not URL-encoded correctly (use %XX for special characters)`);
    }
  }
  return {
    nodes: parsed,
    tls: scheme.toLowerCase() === "rediss",
    ...(username !== undefined && { username }),
    ...(password !== undefined && { password }),
  };
}
