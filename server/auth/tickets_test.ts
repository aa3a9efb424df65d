import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { testTokens } from "../../testing/auth_tokens.ts";
import { startRedis } from "../../testing/redis_server.ts";
import { sseFrames } from "../../testing/sse.ts";
import { missingTools } from "../../testing/tools.ts";
import { createMemoryIdempotencyStore, createMemoryStore, openStore } from "../../lib/store/mod.ts";
import { authApp } from "../../testing/auth_app.ts";
import { binding, createTickets, type Redeemed } from "./tickets.ts";

const ui = { name: "ui", tenant: "acme", scopes: ["tasks:read" as const] };
const q = (text = "") => new URLSearchParams(text);
const refusal = (r: Redeemed) => "refused" in r ? r.refused : "accepted";

Deno.test("binding(): method, path and the sorted query without ticket", () => {
  assertEquals(
    binding("get", "/stream", q("replay=false&events=a,b&ticket=x")),
    "GET /stream?events=a%2Cb&replay=false",
  );
  assertEquals(binding("GET", "/stream", q()), "GET /stream");
});

Deno.test("a ticket works once, on its URL only, carrying its principal; not after it expires", async () => {
  let now = 1_000_000;
  const tickets = createTickets(createMemoryIdempotencyStore({ now: () => now }), { now: () => now });
  const { ticket, expiresAt } = await tickets.issue(ui, "GET", "/tasks/t-1/stream", q("replay=false&events=done"));
  assertEquals(expiresAt, now + 60_000);
  assertMatch(ticket, /^[A-Za-z0-9_-]{43}$/);
  // Another URL is refused and does not use the ticket up.
  for (const [path, query] of [["/tasks/t-2/stream", ""], ["/tasks/t-1/stream", "replay=true&events=done"]]) {
    assertMatch(refusal(await tickets.redeem(ticket, "GET", path, q(query))), /issued for GET \/tasks\/t-1\/stream/);
  }
  assertMatch(refusal(await tickets.redeem(ticket, "POST", "/tasks/t-1/stream", q())), /issued for GET/);
  assertEquals(
    await tickets.redeem(ticket, "GET", "/tasks/t-1/stream", q(`events=done&ticket=${ticket}&replay=false`)),
    { principal: ui },
  );
  assertMatch(
    refusal(await tickets.redeem(ticket, "GET", "/tasks/t-1/stream", q("events=done&replay=false"))),
    /used already/,
  );
  assertMatch(refusal(await tickets.redeem("made-up", "GET", "/tasks/t-1/stream", q())), /unknown or has expired/);

  const late = await tickets.issue(ui, "GET", "/stream", q());
  now += 60_001;
  assertMatch(refusal(await tickets.redeem(late.ticket, "GET", "/stream", q())), /unknown or has expired/);
});

async function concurrentRedeems(
  keys: Parameters<typeof createTickets>[0],
  other: Parameters<typeof createTickets>[0],
) {
  const a = createTickets(keys);
  const b = createTickets(other);
  const { ticket } = await a.issue(ui, "GET", "/stream", q());
  const outcomes = await Promise.all(
    Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).redeem(ticket, "GET", "/stream", q())),
  );
  assertEquals(outcomes.filter((o) => "principal" in o).length, 1);
}

Deno.test("of concurrent redeems of one ticket exactly one wins (memory)", async () => {
  const keys = createMemoryIdempotencyStore();
  await concurrentRedeems(keys, keys);
});

Deno.test(
  "tickets on Redis: issued through one connection, redeemed once through another (real redis-server)",
  { ignore: missingTools("redis-server") },
  async () => {
    await using redis = await startRedis();
    const prefix = `tickets-${crypto.randomUUID()}:`;
    const one = await openStore({ url: redis.url, prefix });
    const two = await openStore({ url: redis.url, prefix });
    try {
      await concurrentRedeems(one.idempotency, two.idempotency);
      const { ticket } = await createTickets(one.idempotency).issue(ui, "GET", "/x/stream", q());
      assertEquals(await createTickets(two.idempotency).redeem(ticket, "GET", "/x/stream", q()), { principal: ui });
    } finally {
      await one.close();
      await two.close();
    }
  },
);

Deno.test("POST /stream-tickets → a ticket that opens that stream once, as an EventSource would", async () => {
  const tokens = testTokens();
  await using api = await authApp(createMemoryStore(), tokens);
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  const created = await api.call("POST", "/tasks", auth(tokens.admin), { kind: "demo", input: { steps: 1 } });
  const id = created.body.task_id as string;
  const issued = await api.call("POST", "/stream-tickets", auth(tokens.only["tasks:read"]), {
    url: `/tasks/${id}/stream?replay=true`,
  });
  assertEquals(issued.status, 201, issued.text);
  assertEquals(issued.body.expires_in, 60);
  assertEquals(issued.body.url, `/tasks/${id}/stream?replay=true&ticket=${issued.body.ticket}`);

  const res = await api.app.request(issued.body.url);
  assertEquals(res.status, 200);
  const kinds: string[] = [];
  for await (const frame of sseFrames(res.body!)) if (frame.event) kinds.push(frame.event);
  assertEquals(kinds.at(-1), "done"); // the whole stream, to its end

  const again = await api.call("GET", issued.body.url);
  assertEquals(again.status, 401);
  assertMatch(again.body.detail, /used already/);
  assert(!again.text.includes(issued.body.ticket), "the ticket is echoed");

  const other = await api.call("POST", "/stream-tickets", auth(tokens.admin), { url: `/tasks/${id}/stream` });
  const elsewhere = await api.call("GET", `/tasks/${id}/tree?ticket=${other.body.ticket}`);
  assertEquals(elsewhere.status, 401, "a ticket for a stream opens nothing else");
  const wrongStream = await api.call("GET", `/sessions/s-1/stream?ticket=${other.body.ticket}`);
  assertEquals(wrongStream.status, 401);
  assertMatch(wrongStream.body.detail, /issued for GET \/tasks\/.*\/stream, not GET \/sessions\/s-1\/stream/);
});

Deno.test("POST /stream-tickets refuses what is not a stream (422) and a token without the stream's scope (403)", async () => {
  const tokens = testTokens();
  await using api = await authApp(createMemoryStore(), tokens);
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  for (const url of ["/tasks", "/tasks/t-1", "https://elsewhere.example/stream", "//elsewhere/stream", "stream"]) {
    const res = await api.call("POST", "/stream-tickets", auth(tokens.admin), { url });
    assertEquals(res.status, 422, url);
    assertEquals(res.body.errors[0].field, "url");
  }
  const none = await api.call("POST", "/stream-tickets", {}, { url: "/stream" });
  assertEquals(none.status, 401);
  const lacking = await api.call("POST", "/stream-tickets", auth(tokens.only["pipelines:read"]), { url: "/stream" });
  assertEquals(lacking.status, 403);
});
