import { assertEquals } from "../../../testing/assert.ts";
import type { Subscriber } from "./follow.ts";
import { sharedSubscriber } from "./shared_subscriber.ts";

/** A fake pub/sub connection that records what it is asked, and can deliver messages and reconnects. */
function fakeConnection() {
  const log: string[] = [];
  const message: ((channel: string, message: string) => void)[] = [];
  const reconnect: (() => void)[] = [];
  let opened = 0;
  const open = (): Subscriber => {
    const n = ++opened;
    log.push(`open ${n}`);
    return {
      subscribe: (channel) => Promise.resolve(void log.push(`sub ${channel}`)),
      unsubscribe: (channel) => Promise.resolve(void log.push(`unsub ${channel}`)),
      onMessage: (handler) => void message.push(handler),
      onReconnect: (handler) => void reconnect.push(handler),
      close: () => void log.push(`close ${n}`),
    };
  };
  return {
    log,
    open,
    deliver: (channel: string, text: string) => message.forEach((handler) => handler(channel, text)),
    reconnect: () => reconnect.forEach((handler) => handler()),
  };
}

Deno.test("sharedSubscriber: pools share one connection; messages go to the pools of their channel", async () => {
  const connection = fakeConnection();
  const open = sharedSubscriber(connection.open);
  const got: string[] = [];
  const [a, b] = ["a", "b"].map((name) => {
    const subscriber = open();
    subscriber.onMessage((channel, text) => got.push(`${name} ${channel} ${text}`));
    subscriber.onReconnect(() => got.push(`${name} reconnect`));
    return subscriber;
  });
  await a.subscribe("x");
  await b.subscribe("y");
  await b.subscribe("x");
  connection.deliver("x", "1");
  connection.deliver("y", "2");
  connection.deliver("z", "3");
  connection.reconnect();
  assertEquals(got, ["a x 1", "b x 1", "b y 2", "a reconnect", "b reconnect"]);
  await a.unsubscribe("x");
  assertEquals(connection.log, ["open 1", "sub x", "sub y"], "b still follows x");
  await b.unsubscribe("x");
  b.close();
  assertEquals(connection.log.slice(3), ["unsub x", "unsub y"], "closing b releases its channels, not the connection");
  a.close();
  assertEquals(connection.log.slice(5), ["close 1"], "closed with the last pool");
  const c = open();
  await c.subscribe("x");
  assertEquals(connection.log.slice(6), ["open 2", "sub x"], "and opened again when a pool subscribes");
  c.close();
});

Deno.test("sharedSubscriber: a second pool of a channel waits for the one subscription; a failed one is tried again", async () => {
  let settle: { resolve(): void; reject(e: Error): void } | undefined;
  const subscribes: string[] = [];
  const open = sharedSubscriber(() => ({
    subscribe: (channel) => {
      subscribes.push(channel);
      return new Promise<void>((resolve, reject) => settle = { resolve, reject });
    },
    unsubscribe: () => Promise.resolve(),
    onMessage: () => {},
    onReconnect: () => {},
    close: () => {},
  }));
  const [a, b] = [open(), open()];
  const order: string[] = [];
  const first = a.subscribe("x").then(() => order.push("a"), (e) => order.push(`a ${e.message}`));
  const second = b.subscribe("x").then(() => order.push("b"), (e) => order.push(`b ${e.message}`));
  await new Promise((r) => setTimeout(r, 10));
  assertEquals([subscribes, order], [["x"], []], "one SUBSCRIBE, and b waits for it");
  settle!.reject(new Error("down"));
  await Promise.all([first, second]);
  assertEquals(order, ["a down", "b down"]);
  const again = a.subscribe("x");
  settle!.resolve();
  await again;
  assertEquals(subscribes, ["x", "x"], "subscribed again after the failure");
  a.close();
  b.close();
});
