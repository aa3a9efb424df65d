import type { Subscriber } from "./follow.ts";

/**
 * One pub/sub connection shared by several follower pools (a store's base and its tenant
 * views): each call of the returned function gives a pool its own {@link Subscriber} over the
 * one underlying connection, which opens on the first subscription and closes when the last
 * pool closes its subscriber. Messages go to the pools subscribed to their channel; a
 * reconnect is told to every pool.
 *
 * @example
 * ```ts ignore
 * const subscriber = sharedSubscriber(() => openPubSubConnection());
 * createScriptedTaskPorts(host, { prefix, follow: { kind: "subscribe", subscriber } });
 * ```
 */
export function sharedSubscriber(open: () => Subscriber): () => Subscriber {
  let connection: Subscriber | undefined;
  /** Per channel: the pools (their subscribers) following it, and the connection's subscription. */
  const owners = new Map<string, { readonly pools: Set<Shared>; subscribed?: Promise<void> }>();
  const open_ = new Set<Shared>();

  interface Shared {
    readonly channels: Set<string>;
    readonly message: ((channel: string, message: string) => void)[];
    readonly reconnect: (() => void)[];
  }

  const underlying = (): Subscriber => {
    if (connection) return connection;
    const opened = connection = open();
    opened.onMessage((channel, message) => {
      for (const shared of owners.get(channel)?.pools ?? []) {
        for (const handler of shared.message) handler(channel, message);
      }
    });
    opened.onReconnect(() => {
      for (const shared of open_) for (const handler of shared.reconnect) handler();
    });
    return opened;
  };

  const release = async (shared: Shared, channel: string) => {
    if (!shared.channels.delete(channel)) return;
    const entry = owners.get(channel);
    entry?.pools.delete(shared);
    if (entry?.pools.size !== 0) return;
    owners.delete(channel);
    await connection?.unsubscribe(channel);
  };

  return () => {
    const shared: Shared = { channels: new Set(), message: [], reconnect: [] };
    open_.add(shared);
    return {
      async subscribe(channel) {
        shared.channels.add(channel);
        let entry = owners.get(channel);
        if (!entry) owners.set(channel, entry = { pools: new Set() });
        entry.pools.add(shared);
        // Every pool waits for the one subscription (a pool reads its position only once subscribed).
        if (!entry.subscribed) {
          const attempt = entry.subscribed = underlying().subscribe(channel);
          const failed = entry;
          attempt.catch(() => {
            if (failed.subscribed === attempt) failed.subscribed = undefined; // the next subscribe tries again
          });
        }
        await entry.subscribed;
      },
      unsubscribe: (channel) => release(shared, channel),
      onMessage: (handler) => void shared.message.push(handler),
      onReconnect: (handler) => void shared.reconnect.push(handler),
      close() {
        if (!open_.delete(shared)) return;
        for (const channel of [...shared.channels]) release(shared, channel).catch(() => {});
        if (open_.size === 0 && connection) {
          connection.close(); // no connection while nothing is followed
          connection = undefined;
        }
      },
    };
  };
}
