/**
 * A Redis Cluster over TLS (`rediss-cluster://`; clients, cluster bus and
 * replication all on `--tls-port` with `--tls-cluster yes`, a certificate from the real `openssl`)
 * carries the store: the sliding-window rate limit (a script on its key's master) runs on it,
 * a client that does not trust the certificate is refused with the reason, and a server process
 * trusts a private CA through `STORE_TLS_CA_FILE`.
 *
 * @module
 */
import { assert, assertEquals, assertRejects } from "../testing/assert.ts";
import { opensslCertificate } from "../testing/certs.ts";
import { startRedisCluster } from "../testing/redis_cluster.ts";
import { missingTools } from "../testing/tools.ts";
import { createRedisClusterStore } from "../lib/store/redis_cluster.ts";
import { DENO_SERVER, startServer } from "../testing/server_process.ts";

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

      // A server process trusts the nodes' private CA through STORE_TLS_CA_FILE…
      const env = { STORE_URL: cluster.url, STORE_TIMEOUT_MS: "500" };
      {
        await using server = await startServer(DENO_SERVER, { ...env, STORE_TLS_CA_FILE: certFile });
        const health = await fetch(`${server.url}/health`);
        assertEquals([health.status, (await health.json()).store], [200, "redis-cluster"]);
        const limited = await fetch(`${server.url}/api/RateLimited/sliding`, {
          headers: { authorization: `Basic ${btoa("alice:x")}` },
        });
        await limited.body?.cancel();
        assertEquals(limited.status, 200);
      }
      // …and without it refuses to start, saying which setting is missing.
      const refused = await new Deno.Command(DENO_SERVER[0], {
        args: DENO_SERVER.slice(1),
        env: { ...env, PORT: "0" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const said = new TextDecoder().decode(refused.stderr);
      assertEquals(refused.code, 1, said);
      assert(/over TLS.*STORE_TLS_CA_FILE/.test(said), said);
      // A CA file that cannot be read is named.
      const missing = await new Deno.Command(DENO_SERVER[0], {
        args: DENO_SERVER.slice(1),
        env: { ...env, PORT: "0", STORE_TLS_CA_FILE: `${certFile}.nope` },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const why = new TextDecoder().decode(missing.stderr);
      assertEquals(missing.code, 2, why);
      assert(why.includes(`STORE_TLS_CA_FILE '${certFile}.nope'`), why);
    } finally {
      await Deno.remove(certFile.replace(/\/cert\.pem$/, ""), { recursive: true }).catch(() => {});
    }
  },
);
