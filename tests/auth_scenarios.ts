/**
 * Access control (issue 21) against a server process, run on Deno and on the Node bundle
 * (`auth_process_test.ts`): the safe default, the tokens file at start, every route's
 * 401/403 over real HTTP, and a stream ticket issued by one process and used on another.
 *
 * @module
 */
import { assert, assertEquals, assertMatch } from "./assert.ts";
import { concrete, ROUTE_SCOPES, testTokens } from "./auth_tokens.ts";
import { startRedis } from "./redis_server.ts";
import { startServer } from "./server_process.ts";
import { sseEvents } from "./sse.ts";
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
            await status(method, route, tokens.allBut[scope]),
          ];
          assertEquals(seen, [401, 401, 403], `${method} ${pattern}`);
          const allowed = await status(method, route, tokens.only[scope]);
          assert(![401, 403].includes(allowed), `${method} ${pattern} with ${scope}: ${allowed}`);
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
