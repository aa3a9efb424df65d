import { Webhook } from "standardwebhooks";
import { assert, assertEquals, assertMatch, assertThrows } from "../../testing/assert.ts";
import { newSecret, signature, webhookHeaders } from "./signature.ts";

const BODY = JSON.stringify({ type: "task.done", data: { id: "t_1", note: "naïve – ünïcode" } });
const now = () => Math.floor(Date.now() / 1000);

Deno.test("newSecret() is whsec_ and 24 random bytes in base64, new each time", () => {
  const [a, b] = [newSecret(), newSecret()];
  assertMatch(a, /^whsec_[A-Za-z0-9+/]{32}$/);
  assertEquals(atob(a.slice(6)).length, 24);
  assert(a !== b);
});

Deno.test("the official verifier accepts webhookHeaders() for the body", async () => {
  const secret = newSecret();
  const headers = await webhookHeaders(secret, "msg_1", now(), BODY);
  assertEquals(Object.keys(headers).sort(), ["content-type", "webhook-id", "webhook-signature", "webhook-timestamp"]);
  assertEquals(headers["content-type"], "application/json");
  assertEquals(new Webhook(secret).verify(BODY, headers), JSON.parse(BODY));
});

Deno.test("the official verifier refuses a changed body, a wrong secret and a changed id", async () => {
  const secret = newSecret();
  const headers = await webhookHeaders(secret, "msg_2", now(), BODY);
  assertThrows(() => new Webhook(secret).verify(BODY.replace("t_1", "t_2"), headers), /No matching signature/);
  assertThrows(() => new Webhook(newSecret()).verify(BODY, headers), /No matching signature/);
  assertThrows(() => new Webhook(secret).verify(BODY, { ...headers, "webhook-id": "msg_3" }), /No matching signature/);
});

Deno.test("signature() matches the Standard Webhooks libraries' own test vector", async () => {
  // The vector the Standard Webhooks libraries test against; a secret without the prefix is read as base64 too.
  const secret = "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const expected = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
  assertEquals(await signature(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}'), expected);
  assertEquals(
    await signature(`whsec_${secret}`, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, '{"test": 2432232314}'),
    expected,
  );
});
