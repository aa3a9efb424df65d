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
  /** The pools (their subscribers) subscribed to each channel. */
  const owners = new Map<string, Set<Shared>>();
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
      for (const shared of owners.get(channel) ?? []) for (const handler of shared.message) handler(channel, message);
    });
    opened.onReconnect(() => {
      for (const shared of open_) for (const handler of shared.reconnect) handler();
    });
    return opened;
  };

  const release = async (shared: Shared, channel: string) => {
    if (!shared.channels.delete(channel)) return;
    const set = owners.get(channel);
    set?.delete(shared);
    if (set?.size !== 0) return;
    owners.delete(channel);
    await connection?.unsubscribe(channel);
  };

  return () => {
    const shared: Shared = { channels: new Set(), message: [], reconnect: [] };
    open_.add(shared);
    return {
      async subscribe(channel) {
        shared.channels.add(channel);
        const set = owners.get(channel) ?? new Set();
        owners.set(channel, set);
        const first = set.size === 0;
        set.add(shared);
        // Subscribed again when it is the first: an unsubscribe of the last owner may be on its way.
        if (first || connection === undefined) await underlying().subscribe(channel);
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
