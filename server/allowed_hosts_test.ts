import { assertEquals, assertMatch, assertThrows } from "../testing/assert.ts";
import { testTokens } from "../testing/auth_tokens.ts";
import { createTokenSet, parseTokens } from "./auth/tokens.ts";
import { isLocalHostName, parseAllowedHosts } from "./allowed_hosts.ts";
import { testApp, type TestServiceOptions } from "../testing/service.ts";

/** The app of `options`, its log lines kept. */
function setup(options: TestServiceOptions = {}) {
  const lines: string[] = [];
  const served = testApp({ ...options, log: (line) => lines.push(line) });
  const app = served.app;
  const status = async (url: string, init?: RequestInit) => {
    const res = await app.request(url, init);
    await res.body?.cancel();
    return res.status;
  };
  return { app, lines, status, [Symbol.asyncDispose]: () => served.service.close() };
}

const LOCAL = [
  "http://localhost/health",
  "http://127.0.0.1:8080/health",
  "http://127.0.0.5/health",
  "http://[::1]:8080/health",
  "http://app.localhost:8080/health",
  "http://LOCALHOST/health",
  // An address is no name a page's site can point elsewhere: a page there is the service's own.
  "http://10.1.2.3:8080/health",
  "http://[fd00::5]/health",
];

Deno.test("running open, a Host that is not local is a 421 naming ALLOWED_HOSTS; local names and addresses pass", async () => {
  await using served = setup();
  const { app, status, lines } = served;
  for (const url of LOCAL) assertEquals(await status(url), 200, url);
  for (const url of ["http://evil.example/health", "http://evil.example:8080/tasks", "http://127.0.0.1.nip.io/"]) {
    const res = await app.request(url, { method: url.endsWith("/tasks") ? "POST" : "GET" });
    const problem = await res.json();
    assertEquals([res.status, problem.title], [421, "Misdirected Request"], url);
    const host = new URL(url).hostname;
    assertMatch(problem.detail, new RegExp(`'${host.replaceAll(".", "\\.")}'.*ALLOWED_HOSTS`));
    assertEquals(res.headers.get("x-content-type-options"), "nosniff");
  }
  assertEquals((await app.request("http://localhost/tasks")).status, 200);
  assertEquals(lines, []);
});

Deno.test("ALLOWED_HOSTS names are answered too, a leading dot for a domain and its subdomains", async () => {
  await using served = setup({ env: { ALLOWED_HOSTS: "svc.example,.corp.example" } });
  const { status } = served;
  for (const host of ["svc.example", "SVC.example:8443", "corp.example", "a.b.corp.example", "localhost"]) {
    assertEquals(await status(`http://${host}/health`), 200, host);
  }
  for (const host of ["evil.example", "notsvc.example", "svc.example.evil", "xcorp.example"]) {
    assertEquals(await status(`http://${host}/health`), 421, host);
  }
});

Deno.test("with tokens any Host is answered unless ALLOWED_HOSTS names some; the edge's 'any' answers every Host", async () => {
  const tokens = { tokens: createTokenSet(parseTokens(testTokens().file, "test")) };
  assertEquals(await setup(tokens).status("http://svc.example/health"), 200);
  await using pinned = setup({ ...tokens, env: { ALLOWED_HOSTS: "svc.example" } });
  assertEquals([await pinned.status("http://svc.example/health"), await pinned.status("http://evil.example/health")], [
    200,
    421,
  ]);
  assertEquals(
    await setup({ configure: (config) => ({ ...config, auth: { ...config.auth, allowedHosts: "any" } }) }).status(
      "http://my-worker.workers.dev/health",
    ),
    200,
  );
});

Deno.test("isLocalHostName() and parseAllowedHosts()", () => {
  for (const host of ["localhost", "a.localhost", "127.0.0.1", "10.0.0.1", "[::1]", "[2001:db8::1]"]) {
    assertEquals(isLocalHostName(host), true, host);
  }
  for (const host of ["example.com", "localhost.example", "1.2.3.4.nip.io", "[::1].evil", "", "127.0.0.1x"]) {
    assertEquals(isLocalHostName(host), false, host);
  }
  assertEquals(parseAllowedHosts(" svc.example, .Corp.Example ,,"), ["svc.example", ".corp.example"]);
  assertEquals(parseAllowedHosts(""), []);
  assertThrows(
    () => parseAllowedHosts("https://svc.example"),
    /ALLOWED_HOSTS must list host names.*not 'https:\/\/svc\.example'$/,
  );
  assertThrows(() => parseAllowedHosts("svc.example:8080,*"), /'svc\.example:8080', '\*'/);
});
