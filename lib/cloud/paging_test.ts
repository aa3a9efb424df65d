import { assertEquals, assertRejects } from "../../testing/assert.ts";
import { StoreCtlError } from "../errors/mod.ts";
import type { CloudClient } from "./client.ts";
import { listAll, readList } from "./paging.ts";

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

Deno.test("listAll() reads each page once: a server that ignores offset, or repeats a page, ends the list", async () => {
  const queries: string[] = [];
  const ignoring = {
    get: (_path: string, options: { query: URLSearchParams }) => {
      queries.push(options.query.toString());
      return Promise.resolve({ items: Array.from({ length: 120 }, (_, i) => i) });
    },
  } as unknown as CloudClient;
  assertEquals((await listAll(ignoring, "/x", items)).length, 120);
  assertEquals(queries, ["offset=0&limit=100"]);
  // A server that honours limit but ignores offset: the second page repeats the first.
  queries.length = 0;
  const repeating = {
    get: (_path: string, options: { query: URLSearchParams }) => {
      queries.push(options.query.toString());
      return Promise.resolve({ items: Array.from({ length: Number(options.query.get("limit")) }, (_, i) => i) });
    },
  } as unknown as CloudClient;
  assertEquals(await listAll(repeating, "/x", items, { pageSize: 2 }), [0, 1]);
  assertEquals(queries, ["offset=0&limit=2", "offset=2&limit=2"]);
});

Deno.test("listAll() ends at a 404 for the page after the last, as the real API answers it", async () => {
  const queries: string[] = [];
  const strict = {
    get: (_path: string, options: { query: URLSearchParams }) => {
      queries.push(options.query.toString());
      const offset = Number(options.query.get("offset"));
      if (offset >= 100) return Promise.reject(new StoreCtlError("not_found", "Not found", { status: 404 }));
      return Promise.resolve({ items: Array.from({ length: 100 }, (_, i) => offset + i) });
    },
  } as unknown as CloudClient;
  assertEquals((await listAll(strict, "/x", items)).length, 100);
  assertEquals(queries, ["offset=0&limit=100", "offset=100&limit=100"]);
  // A 404 for the first page is the list's own: the subscription is not there.
  const missing = { get: () => Promise.reject(new StoreCtlError("not_found", "Not found", { status: 404 })) };
  await assertRejects(() => listAll(missing as unknown as CloudClient, "/x", items), /Not found/);
});

Deno.test("readList() reads an unpaged list once, without paging parameters, and cuts it at the limit", async () => {
  const paths: unknown[] = [];
  const client = {
    get: (path: string, options?: { query?: URLSearchParams }) => {
      paths.push([path, options?.query?.toString()]);
      return Promise.resolve({ items: Array.from({ length: 120 }, (_, i) => i) });
    },
  } as unknown as CloudClient;
  assertEquals((await readList(client, "/tasks", items)).length, 120);
  assertEquals(await readList(client, "/tasks", items, { limit: 5 }), [0, 1, 2, 3, 4]);
  assertEquals(paths, [["/tasks", undefined], ["/tasks", undefined]]);
});
