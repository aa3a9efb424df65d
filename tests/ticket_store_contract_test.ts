/**
 * Stream tickets (server/auth/tickets.ts) on every store backend: issued through one connection,
 * redeemed through another with the same prefix (as two server processes would), once; of
 * concurrent redeems exactly one wins; an expired ticket is refused.
 */
import { assertEquals, assertMatch } from "../testing/assert.ts";
import { type OpenStore, testOnEveryStore } from "../testing/store_backends.ts";
import { createTickets, type Redeemed } from "../server/auth/tickets.ts";

const ui = { name: "ui", tenant: "acme", scopes: ["tasks:read" as const] };
const none = new URLSearchParams();
const refusal = (r: Redeemed) => "refused" in r ? r.refused : "accepted";

async function contract(t: Deno.TestContext, open: OpenStore) {
  const prefix = `tickets-${crypto.randomUUID()}:`;
  const one = await open(prefix);
  // The memory store is one process: both "connections" are the same store there.
  const two = one.kind === "memory" ? one : await open(prefix);
  try {
    await t.step("issued on one connection, used once on another, never on another URL", async () => {
      const { ticket } = await createTickets(one.idempotency).issue(ui, "GET", "/tasks/t-1/stream", none);
      const elsewhere = await createTickets(two.idempotency).redeem(ticket, "GET", "/tasks/t-2/stream", none);
      assertMatch(refusal(elsewhere), /issued for GET \/tasks\/t-1\/stream/);
      assertEquals(await createTickets(two.idempotency).redeem(ticket, "GET", "/tasks/t-1/stream", none), {
        principal: ui,
      });
      assertMatch(
        refusal(await createTickets(one.idempotency).redeem(ticket, "GET", "/tasks/t-1/stream", none)),
        /used/,
      );
    });
    await t.step("of 20 concurrent redeems over two connections exactly one wins", async () => {
      const a = createTickets(one.idempotency), b = createTickets(two.idempotency);
      const { ticket } = await a.issue(ui, "GET", "/stream", none);
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).redeem(ticket, "GET", "/stream", none)),
      );
      assertEquals(outcomes.filter((o) => "principal" in o).length, 1);
    });
    await t.step("a ticket past its TTL is refused (the store's expiry)", async () => {
      const short = createTickets(one.idempotency, { ttlMs: 50 });
      const { ticket } = await short.issue(ui, "GET", "/stream", none);
      const deadline = Date.now() + 5_000;
      let outcome: Redeemed = { refused: "not tried" };
      // The store's clock decides; no fixed sleep: poll with a ticket-reading call that does not use it up.
      while (Date.now() < deadline) {
        outcome = await createTickets(two.idempotency).redeem(ticket, "GET", "/elsewhere", none);
        if (/unknown or has expired/.test(refusal(outcome))) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      assertMatch(refusal(outcome), /unknown or has expired/);
      assertMatch(refusal(await short.redeem(ticket, "GET", "/stream", none)), /unknown or has expired/);
    });
  } finally {
    await one.close();
    if (two !== one) await two.close();
  }
}

testOnEveryStore("stream tickets", contract);
