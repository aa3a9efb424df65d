import { assertEquals } from "../../tests/assert.ts";
import type { CloudClient } from "./client.ts";
import { listAll } from "./paging.ts";

/** A client over `total` items that serves at most `serverMax` per page, recording each query. */
function pagedClient(total: number, serverMax = Infinity) {
  const queries: string[] = [];
  const client = {
    get: (_path: string, options: { query: URLSearchParams }) => {
      queries.push(options.query.toString());
      const offset = Number(options.query.get("offset"));
      const limit = Math.min(Number(options.query.get("limit")), serverMax);
      const items = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => offset + i);
      return Promise.resolve({ items });
    },
  } as unknown as CloudClient;
  return { client, queries };
}

const items = (body: unknown) => (body as { items: number[] }).items;

Deno.test("listAll() reads page after page until a short one, and stops at the limit", async () => {
  const all = pagedClient(5);
  assertEquals(await listAll(all.client, "/x", items, { pageSize: 2 }), [0, 1, 2, 3, 4]);
  assertEquals(all.queries, ["offset=0&limit=2", "offset=2&limit=2", "offset=4&limit=2"]);
  const capped = pagedClient(5);
  assertEquals(await listAll(capped.client, "/x", items, { pageSize: 2, limit: 3 }), [0, 1, 2]);
  assertEquals(capped.queries, ["offset=0&limit=2", "offset=2&limit=1"]);
  const exact = pagedClient(4);
  assertEquals((await listAll(exact.client, "/x", items, { pageSize: 2 })).length, 4);
  assertEquals(exact.queries.at(-1), "offset=4&limit=2", "a full last page needs one more (empty) read");
  const none = pagedClient(0);
  assertEquals(await listAll(none.client, "/x", items), []);
  assertEquals(none.queries, ["offset=0&limit=100"]);
});
