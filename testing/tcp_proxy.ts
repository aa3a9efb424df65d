/**
 * A TCP proxy on a free loopback port that can cut every open connection, like a load
 * balancer dropping streams: clients reconnect through it to the same upstream.
 *
 * @module
 */
export interface TcpProxy extends AsyncDisposable {
  readonly port: number;
  /** Closes every connection open now; new ones are accepted as before. */
  dropAll(): void;
}

export function startTcpProxy(upstreamPort: number): TcpProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const pipe = async (from: Deno.Conn, to: Deno.Conn) => {
    try {
      await from.readable.pipeTo(to.writable);
    } catch { /* the other side closed */ }
  };
  const accepting = (async () => {
    for await (const client of listener) {
      const upstream = await Deno.connect({ hostname: "127.0.0.1", port: upstreamPort }).catch(() => undefined);
      if (!upstream) {
        client.close();
        continue;
      }
      open.add(client).add(upstream);
      void Promise.all([pipe(client, upstream), pipe(upstream, client)]).finally(() => {
        for (const conn of [client, upstream]) {
          open.delete(conn);
          try {
            conn.close();
          } catch { /* already closed */ }
        }
      });
    }
  })().catch(() => {});
  const dropAll = () => {
    for (const conn of open) {
      try {
        conn.close();
      } catch { /* already closed */ }
    }
    open.clear();
  };
  return {
    port: (listener.addr as Deno.NetAddr).port,
    dropAll,
    async [Symbol.asyncDispose]() {
      listener.close();
      dropAll();
      await accepting;
    },
  };
}
