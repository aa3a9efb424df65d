import { assertEquals, assertMatch } from "../../testing/assert.ts";
import { loadServerConfig } from "../config.ts";

const refused = (env: Record<string, string>): string => {
  try {
    loadServerConfig(env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`loadServerConfig(${JSON.stringify(env)}) did not refuse`);
};

Deno.test("access settings default to open on loopback, no CORS", () => {
  const config = loadServerConfig({});
  assertEquals(config.auth, { allowAnonymous: false, corsOrigins: [], allowedHosts: [] });
  assertEquals(config.hostname, "127.0.0.1");
});

Deno.test("SERVICE_TOKENS_FILE, ALLOW_ANONYMOUS and CORS_ORIGINS are read and validated", () => {
  const config = loadServerConfig({
    SERVICE_TOKENS_FILE: "/etc/storectl/tokens.json",
    CORS_ORIGINS: "https://app.example.com, http://localhost:5173",
    HOST: "0.0.0.0",
  });
  assertEquals(config.auth, {
    tokensFile: "/etc/storectl/tokens.json",
    allowAnonymous: false,
    corsOrigins: ["https://app.example.com", "http://localhost:5173"],
    allowedHosts: [],
  });
  assertMatch(refused({ CORS_ORIGINS: "*" }), /CORS_ORIGINS.*'\*'.*name each origin/);
  assertMatch(refused({ CORS_ORIGINS: "https://a.example/path" }), /CORS_ORIGINS.*'https:\/\/a\.example\/path'/);
  assertMatch(refused({ ALLOW_ANONYMOUS: "maybe" }), /ALLOW_ANONYMOUS must be true or false/);
});

Deno.test("ALLOWED_HOSTS: host names and leading-dot domains, lower-cased; a scheme, port or * is refused naming it", () => {
  assertEquals(loadServerConfig({ ALLOWED_HOSTS: "svc.example, .Corp.Example" }).auth.allowedHosts, [
    "svc.example",
    ".corp.example",
  ]);
  const message = refused({ ALLOWED_HOSTS: "http://svc.example,svc.example:8080,*,ok.example", PORT: "x" });
  assertMatch(
    message,
    /ALLOWED_HOSTS must list host names .* not 'http:\/\/svc\.example', 'svc\.example:8080', '\*'$/m,
  );
  assertMatch(message, /PORT must be a whole number/); // listed with every other bad variable
});

Deno.test("a non-loopback HOST without tokens is refused unless ALLOW_ANONYMOUS=true, saying why", () => {
  for (const host of ["0.0.0.0", "::", "10.1.2.3", "example.com"]) {
    const message = refused({ HOST: host });
    assertMatch(message, new RegExp(`HOST=${host.replace(/\./g, "\\.")}`));
    assertMatch(message, /SERVICE_TOKENS_FILE/);
    assertMatch(message, /ALLOW_ANONYMOUS=true/);
  }
  for (const host of ["127.0.0.1", "127.0.0.5", "::1", "[::1]", "localhost"]) {
    assertEquals(loadServerConfig({ HOST: host }).hostname, host);
  }
  assertEquals(loadServerConfig({ HOST: "0.0.0.0", ALLOW_ANONYMOUS: "true" }).auth.allowAnonymous, true);
});
