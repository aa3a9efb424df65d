import { assertEquals } from "../../testing/assert.ts";
import { fetchTransport } from "../http/mod.ts";
import { createEnterpriseClient } from "./client.ts";
import { listCrdbs } from "./crdbs.ts";

function answering(body: unknown) {
  return createEnterpriseClient(
    { url: "https://cluster.test:9443", username: "a", password: "b" },
    { transport: fetchTransport(() => Promise.resolve(Response.json(body))), timeoutMs: 5000 },
  );
}

Deno.test("listCrdbs() reads the documented array and the captured {crdbs: [...]}", async () => {
  const crdb = { guid: "6f1c2a52-0000-4000-8000-000000000001", name: "geo" };
  assertEquals(await listCrdbs(answering([crdb])), [crdb]);
  assertEquals(await listCrdbs(answering({ crdbs: [crdb] })), [crdb]);
  assertEquals(await listCrdbs(answering({ crdbs: [] })), []);
});
