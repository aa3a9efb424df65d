/**
 * Access control against a server process, run on Deno and on the Node bundle
 * (`auth_process_test.ts`): the safe default, the tokens file at start, every route's
 * 401/403 over real HTTP, and a stream ticket issued by one process and used on another.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { concrete, ROUTE_SCOPES, testTokens, tokensMeeting, tokenWithout } from "../testing/auth_tokens.ts";
import { sha256Hex } from "../server/auth/tokens.ts";
import { until as waitUntil } from "../testing/until.ts";
import { startRedis } from "../testing/redis_server.ts";
import { startServer } from "../testing/server_process.ts";
import { sseEvents } from "../testing/sse.ts";
import type { TaskScenario } from "./task_scenarios.ts";

/** Runs the server to its exit (it is expected to refuse to start): its code and stderr. */
async function refusal(command: string[], env: Record<string, string>) {
  const { code, stderr } = await new Deno.Command(command[0], {
    args: command.slice(1),
    env: { PORT: "0", ...env },
    stdout: "null",
    stderr: "piped",
    signal: AbortSignal.timeout(20_000),
  }).output();
  return { code, stderr: new TextDecoder().decode(stderr) };
}

async function tokensFile(text: string): Promise<string> {
  const path = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(path, text);
  return path;
}

export const AUTH_SCENARIOS: readonly TaskScenario[] = [
  {
    name: "safe default: open on loopback says so; another address without tokens is refused, naming the fixes",
    tools: [],
    async run(command) {
      await using local = await startServer(command, {});
      assertMatch(local.url, /^http:\/\/127\.0\.0\.1:/);
      assertMatch(local.banner, /\[open: no SERVICE_TOKENS_FILE/);
      assertEquals(await fetch(`${local.url}/tasks`).then(async (r) => (await r.body?.cancel(), r.status)), 200);

      const refused = await refusal(command, { HOST: "0.0.0.0" });
      assertEquals(refused.code, 2, refused.stderr);
      assertMatch(refused.stderr, /HOST=0\.0\.0\.0 is not a loopback address/);
      assertMatch(refused.stderr, /SERVICE_TOKENS_FILE/);
      assertMatch(refused.stderr, /ALLOW_ANONYMOUS=true/);

      await using anyone = await startServer(command, { HOST: "0.0.0.0", ALLOW_ANONYMOUS: "true" });
      assertMatch(anyone.banner, /\[open: no SERVICE_TOKENS_FILE/);
    },
  },
  {
    name: "a bad tokens file stops the server (exit 2) naming the entry and why, never echoing a token",
    tools: [],
    async run(command) {
      const path = await tokensFile(
        JSON.stringify([{ name: "ci", tenant: "acme", scopes: ["tasks:read"], token: "plain-secret-123" }]),
      );
      try {
        const bad = await refusal(command, { SERVICE_TOKENS_FILE: path, HOST: "0.0.0.0" });
        assertEquals(bad.code, 2, bad.stderr);
        assertMatch(bad.stderr, /entry 1 \('ci'\): holds a 'token': put only its sha256/);
        assert(!bad.stderr.includes("plain-secret-123"));
        const missing = await refusal(command, { SERVICE_TOKENS_FILE: `${path}.absent` });
        assertEquals(missing.code, 2, missing.stderr);
        assertMatch(missing.stderr, /SERVICE_TOKENS_FILE '.*\.absent' cannot be read/);
      } finally {
        await Deno.remove(path);
      }
    },
  },
  {
    name:
      "the tokens file is reloaded on SIGHUP and when it changes; an invalid one keeps the tokens in use and says why",
    tools: [],
    async run(command) {
      const token = (name: string) => `${name}-${crypto.randomUUID()}`;
      const [first, second, third] = [token("first"), token("second"), token("third")];
      const entry = (name: string, value: string, tenant: string) => ({
        name,
        tenant,
        scopes: ["admin"],
        sha256: sha256Hex(value),
      });
      const path = await tokensFile(JSON.stringify([entry("first", first, "acme")]));
      try {
        await using server = await startServer(command, { SERVICE_TOKENS_FILE: path }, { captureStderr: true });
        const status = async (token: string, method = "GET", body?: unknown) => {
          const res = await fetch(`${server.url}/tasks`, {
            method,
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            ...(body !== undefined && { body: JSON.stringify(body) }),
          });
          await res.body?.cancel();
          return res.status;
        };
        assertEquals([await status(first), await status(second)], [200, 401]);

        // A leaked token revoked, a new one for a new tenant: SIGHUP, no restart (the memory store keeps its tasks).
        assertEquals(await status(first, "POST", { kind: "demo", input: { steps: 0 } }), 201);
        await Deno.writeTextFile(path, JSON.stringify([entry("second", second, "newco")]));
        Deno.kill(server.pid, "SIGHUP");
        await waitUntil("the new tokens are in use", async () => await status(second) === 200, 10_000);
        assertEquals(await status(first), 401, "the revoked token is refused");
        assertEquals(await status(second, "POST", { kind: "demo", input: { steps: 0 } }), 201, "the new tenant's");
        assertMatch(server.stderrSoFar(), /SERVICE_TOKENS_FILE '.*' reloaded \(SIGHUP\): 1 token \(was 1\)/);

        // An invalid file is refused and the tokens in use stay, whether it came by SIGHUP or was noticed.
        await Deno.writeTextFile(
          path,
          JSON.stringify([{ name: "bad", tenant: "acme", scopes: ["admin"], token: third }]),
        );
        Deno.kill(server.pid, "SIGHUP");
        await waitUntil("the refusal is logged", () => /not reloaded \(SIGHUP\)/.test(server.stderrSoFar()), 10_000);
        assertMatch(
          server.stderrSoFar(),
          /entry 1 \('bad'\): holds a 'token'.*\n.*still using the 1 token loaded before/,
        );
        assert(!server.stderrSoFar().includes(third), "no token echoed");
        assertEquals(await status(second), 200);

        // A change to the file is noticed without a signal.
        await Deno.writeTextFile(path, JSON.stringify([entry("third", third, "acme")]));
        await waitUntil("the changed file is in use", async () => await status(third) === 200, 10_000);
        assertEquals(await status(second), 401);
        assertMatch(server.stderrSoFar(), /reloaded \(the file changed\): 1 token/);
        assertEquals(await server.stop(), 0, "SIGHUP never stopped it; SIGTERM does");
      } finally {
        await Deno.remove(path);
      }
    },
  },
  {
    name: "every route × (no token, unknown token, token without the scope, with it) over HTTP; open routes open",
    tools: [],
    async run(command) {
      const tokens = testTokens();
      const path = await tokensFile(tokens.file);
      try {
        await using server = await startServer(command, { SERVICE_TOKENS_FILE: path, HOST: "0.0.0.0" });
        assertMatch(server.banner, /\[\d+ tokens\]/);
        const url = server.url.replace("0.0.0.0", "127.0.0.1");
        const status = async (method: string, route: string, token?: string) => {
          const res = await fetch(`${url}${route}`, {
            method,
            headers: {
              ...(token && { authorization: `Bearer ${token}` }),
              ...(method === "POST" && { "content-type": "application/json" }),
            },
            ...(method === "POST" && { body: "{}" }),
          });
          await res.body?.cancel();
          return res.status;
        };
        for (const [method, pattern, scope] of ROUTE_SCOPES) {
          const route = concrete(pattern);
          const seen = [
            await status(method, route),
            await status(method, route, "unknown-token"),
            await status(method, route, tokenWithout(tokens, scope)),
          ];
          assertEquals(seen, [401, 401, 403], `${method} ${pattern}`);
          for (const token of tokensMeeting(tokens, scope)) {
            const allowed = await status(method, route, token);
            // A route that admits either of two scopes may refuse the call itself (server/auth/principal_test.ts).
            const refused = typeof scope === "string" ? [401, 403] : [401];
            assert(!refused.includes(allowed), `${method} ${pattern} with ${scope}: ${allowed}`);
          }
        }
        for (const route of ["/", "/health", "/openapi.json", "/docs"]) {
          assertEquals(await status("GET", route), 200, route);
        }
      } finally {
        await Deno.remove(path);
      }
    },
  },
  {
    name:
      "tenants: another tenant's task is a 404 on every route; listings, streams, search and keys show only one's own (memory and Redis)",
    tools: ["redis-server"],
    async run(command) {
      const tokens = testTokens();
      const path = await tokensFile(tokens.file);
      await using redis = await startRedis();
      try {
        const stores: Record<string, string>[] = [
          {},
          { STORE_URL: redis.url, STORE_KEY_PREFIX: `tenants-${crypto.randomUUID()}:` },
        ];
        for (const store of stores) {
          await using server = await startServer(command, {
            SERVICE_TOKENS_FILE: path,
            CHANNEL_SCOPES: "TASK,SESSION,GLOBAL",
            ...store,
          });
          const call = (token: string, method: string, route: string, body?: unknown, headers = {}) =>
            fetch(`${server.url}${route}`, {
              method,
              headers: {
                authorization: `Bearer ${token}`,
                ...(body !== undefined && { "content-type": "application/json" }),
                ...headers,
              },
              ...(body !== undefined && { body: JSON.stringify(body) }),
            });
          // Both tenants follow a session of the same name, and globex the global stream, before anything runs.
          const acmeSession = await call(tokens.admin, "GET", "/sessions/shared/stream");
          const globexSession = await call(tokens.stranger, "GET", "/sessions/shared/stream");
          const globexGlobal = await call(tokens.stranger, "GET", "/stream");
          const submit = (token: string, message: string) =>
            call(token, "POST", "/tasks", {
              kind: "demo",
              session_id: "shared",
              input: { steps: 1, delay_ms: 0, tokens: [message] },
            }, { "idempotency-key": "same-key" }).then((r) => r.json());
          const acme = await submit(tokens.admin, "acme");
          const globex = await submit(tokens.stranger, "globex");
          assert(acme.task_id !== globex.task_id, "the same Idempotency-Key in two tenants makes two tasks");

          // Every route naming acme's task answers globex as if there were no such task.
          for (const [method, pattern] of ROUTE_SCOPES.filter(([, p]) => p.includes(":task_id"))) {
            const body = method === "POST" ? { input: "x" } : undefined;
            const res = await call(tokens.stranger, method, pattern.replace(":task_id", acme.task_id), body);
            await res.body?.cancel();
            assertEquals(res.status, 404, `${method} ${pattern} with another tenant's task`);
          }
          const read = async (token: string) =>
            await call(token, "GET", `/tasks/${acme.task_id}`).then((r) => r.status);
          assertEquals(await read(tokens.admin), 200, "acme's task is still there");
          const listed = async (token: string) =>
            (await call(token, "GET", "/tasks?limit=100").then((r) => r.json())).tasks.map((t: { task_id: string }) =>
              t.task_id
            );
          assertEquals(await listed(tokens.stranger), [globex.task_id]);
          assertEquals(await listed(tokens.admin), [acme.task_id]);

          // Each session stream carries its own tenant's task only; so does the global stream.
          const until = (id: string) => (f: { event?: string; data?: { task_id?: string } }) =>
            f.event === "done" && f.data?.task_id === id;
          const seen = async (res: Response, id: string) =>
            new Set((await sseEvents(res.body!, until(id))).map((f) => f.data?.task_id));
          assertEquals(await seen(acmeSession, acme.task_id), new Set([acme.task_id]));
          assertEquals(await seen(globexSession, globex.task_id), new Set([globex.task_id]));
          assertEquals(await seen(globexGlobal, globex.task_id), new Set([globex.task_id]));

          // A document acme adds is found by acme's search only.
          const doc = { title: "Lighthouses", content: "Keepers of the lighthouse at Fresnel point.", source: "a.md" };
          await call(tokens.admin, "POST", "/pipelines/documents", doc).then((r) => r.body?.cancel());
          const hits = async (token: string) =>
            (await call(token, "GET", "/pipelines/search?q=lighthouse").then((r) => r.json())).hits.length;
          await waitUntil("acme's search finds its document", async () => await hits(tokens.admin) === 1);
          assertEquals(await hits(tokens.stranger), 0);
          assertEquals(
            (await call(tokens.stranger, "GET", "/pipelines/status").then((r) => r.json())).documents,
            0,
            "globex has no documents",
          );
        }
      } finally {
        await Deno.remove(path);
      }
    },
  },
  {
    name: "a stream ticket issued by one server process opens the stream once on another (same Redis)",
    tools: ["redis-server"],
    async run(command) {
      const tokens = testTokens();
      const path = await tokensFile(tokens.file);
      await using redis = await startRedis();
      try {
        const env = {
          SERVICE_TOKENS_FILE: path,
          STORE_URL: redis.url,
          STORE_KEY_PREFIX: `auth-${crypto.randomUUID()}:`,
        };
        await using a = await startServer(command, env);
        await using b = await startServer(command, env);
        const auth = { authorization: `Bearer ${tokens.admin}`, "content-type": "application/json" };
        const created = await fetch(`${a.url}/tasks`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ kind: "demo", input: { steps: 1 } }),
        }).then((r) => r.json());
        const issued = await fetch(`${a.url}/stream-tickets`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ url: `/tasks/${created.task_id}/stream` }),
        }).then((r) => r.json());
        const res = await fetch(`${b.url}${issued.url}`);
        assertEquals(res.status, 200);
        const events = await sseEvents(res.body!);
        assertEquals(events.at(-1)?.event, "done");
        const again = await fetch(`${a.url}${issued.url}`);
        assertEquals(again.status, 401);
        assertMatch((await again.json()).detail, /used already/);
      } finally {
        await Deno.remove(path);
      }
    },
  },
];
