/**
 * Issue 20 item 3: a Redis Cluster over TLS (`rediss-cluster://`; clients, cluster bus and
 * replication all on `--tls-port` with `--tls-cluster yes`, a certificate from the real `openssl`)
 * carries the store: the sliding-window rate limit (a script on its key's master) runs on it,
 * and a client that does not trust the certificate is refused with the reason.
 *
 * @module
 */
import { assert, assertEquals, assertRejects } from "./assert.ts";
import { opensslCertificate } from "./certs.ts";
import { startRedisCluster } from "./redis_cluster.ts";
import { missingTools } from "./tools.ts";
import { createRedisClusterStore } from "../lib/store/redis_cluster.ts";

Deno.test(
  "Redis Cluster over TLS (rediss-cluster://): the rate limit runs on it; an untrusted certificate is refused",
  { ignore: missingTools("redis-server", "redis-cli", "openssl") },
  async () => {
    const { cert, certFile } = await opensslCertificate();
    const keyFile = certFile.replace(/cert\.pem$/, "key.pem");
    try {
      await using cluster = await startRedisCluster({ tls: { certFile, keyFile } });
      assert(cluster.url.startsWith("rediss-cluster://"), cluster.url);
      const store = await createRedisClusterStore(cluster.url, { prefix: `tls-${crypto.randomUUID()}:`, tlsCa: cert });
      try {
        assertEquals(store.kind, "redis-cluster");
        await store.ping();
        const allowed = [];
        for (let i = 0; i < 3; i++) allowed.push((await store.hitSlidingWindow("alice", 2, 60_000)).allowed);
        assertEquals(allowed, [true, true, false]);
      } finally {
        await store.close();
      }
      const error = await assertRejects(() => createRedisClusterStore(cluster.url, { timeoutMs: 500 }));
      assert(
        /Cannot connect to Redis Cluster.*over TLS.*certificate/.test((error as Error).message),
        (error as Error).message,
      );
    } finally {
      await Deno.remove(certFile.replace(/\/cert\.pem$/, ""), { recursive: true }).catch(() => {});
    }
  },
);
