/**
 * The service's browser-facing hardening in a real browser (Debian's chromium, headless) against
 * a real server process: the console and `/docs` work under their Content-Security-Policy with no
 * violation, while an injected inline script is refused; a page on another origin cannot frame
 * the console, nor change anything with the requests any page can send unasked (no-cors fetches,
 * a text/plain form post); a page under a rebound name (DNS rebinding) gets nothing.
 *
 * @module
 */
import type { Page } from "puppeteer-core";
import { assert, assertEquals } from "../testing/assert.ts";
import { fill, launchBrowser, openPage, waitForText } from "../testing/browser.ts";
import { DENO_SERVER, startServer } from "../testing/server_process.ts";
import { missingTools } from "../testing/tools.ts";
import { until } from "../testing/until.ts";

// Functions that run in the page see its globals; this tells the type check (which has no DOM) about them.
// deno-lint-ignore no-explicit-any
declare const document: any;

/** A page server on another origin (another port of 127.0.0.1): `pages` by path; stopped on dispose. */
function startOtherOrigin(pages: Record<string, string>): { url: string } & AsyncDisposable {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const html = pages[new URL(request.url).pathname];
    return html === undefined
      ? new Response("no such page", { status: 404 })
      : new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, [Symbol.asyncDispose]: () => server.shutdown() };
}

/** Collects the page's CSP violations (as `directive blocked-uri`), from its first script on. */
async function cspViolations(page: Page): Promise<string[]> {
  const violations: string[] = [];
  await page.exposeFunction("reportViolation", (line: string) => violations.push(line));
  await page.evaluateOnNewDocument(() => {
    document.addEventListener("securitypolicyviolation", (e: { violatedDirective: string; blockedURI: string }) => {
      (globalThis as unknown as { reportViolation(line: string): void }).reportViolation(
        `${e.violatedDirective} ${e.blockedURI}`,
      );
    });
  });
  return violations;
}

Deno.test("browser: the console and /docs under their CSP; other origins cannot frame the console", {
  ignore: missingTools("chromium"),
}, async (t) => {
  await using server = await startServer(DENO_SERVER, {});
  await using browser = await launchBrowser();

  await t.step("the console works with no CSP violation; an inline script injected into it does not run", async () => {
    await using page = await openPage(browser);
    const violations = await cspViolations(page);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${server.url}/console`);
    await page.waitForSelector("details.card summary");
    await page.click("details.card summary");
    await fill(page, "details.card input", "under a strict policy");
    await page.click("details.card form button[type=submit]");
    assertEquals(await waitForText(page, "#tokens", /policy$/), "under a strict policy");
    assertEquals([violations, errors], [[], []]);
    const ran = await page.evaluate(() => {
      const script = document.createElement("script");
      script.textContent = "globalThis.injected = true";
      document.head.append(script);
      return "injected" in globalThis;
    });
    assertEquals(ran, false, "an inline script ran in the console");
    await until("the refused script is reported", () => /^script-src(-elem)? inline$/m.test(violations.join("\n")));
  });

  await t.step("/docs renders Swagger UI's operations with no CSP violation", async () => {
    await using page = await openPage(browser);
    const violations = await cspViolations(page);
    await page.goto(`${server.url}/docs`);
    await waitForText(page, ".info .title", /storectl service/);
    await page.waitForSelector(".opblock");
    assert((await page.$$(".opblock")).length > 10, "Swagger UI shows the operations");
    assertEquals(violations, []);
  });

  await t.step("a page on another origin cannot frame the console", async () => {
    await using other = startOtherOrigin({ "/": `<!doctype html><iframe src="${server.url}/console"></iframe>` });
    await using page = await openPage(browser);
    const refused: string[] = [];
    page.on("console", (m) => m.text().includes("frame-ancestors") && refused.push(m.text()));
    await page.goto(`${other.url}/`, { waitUntil: "networkidle0" });
    const frame = page.frames().find((f) => f !== page.mainFrame());
    assert(frame, "the iframe is there");
    assertEquals(await frame.$("#app"), null, `the console loaded in a frame at ${frame.url()}`);
    assertEquals(refused.length, 1, refused.join("\n"));
  });
});

/** A page that, once loaded, sends `service` what a page of any site can send unasked: no-cors fetches and a form post. */
function attackPage(service: string): string {
  const task = JSON.stringify({ kind: "demo", input: { steps: 0 } });
  const doc = JSON.stringify({ title: "Planted", source: "planted.md", content: "planted by another site" });
  // A text/plain form whose one field reads as JSON: name `{"kind":…,"pad":"` and value `"}` joined by "=".
  const field = `{"kind":"demo","input":{"steps":0},"pad":"`;
  return `<!doctype html>
<iframe name="sink"></iframe>
<form id="form" method="post" action="${service}/tasks" enctype="text/plain" target="sink">
<input name='${field}' value='"}'></form>
<script>
const plain = { "content-type": "text/plain" };
globalThis.attack = Promise.all([
  fetch("${service}/tasks", { method: "POST", mode: "no-cors", headers: plain, body: ${JSON.stringify(task)} }),
  fetch("${service}/pipelines/documents", { method: "POST", mode: "no-cors", headers: plain, body: ${
    JSON.stringify(doc)
  } }),
  fetch("${service}/tasks", { method: "POST", mode: "no-cors", body: new Blob([${JSON.stringify(task)}]) }),
  fetch("${service}/pipelines/clear", { method: "POST", mode: "no-cors" }),
]).then(() => document.getElementById("form").submit());
</script>`;
}

Deno.test("browser: pages of other origins cannot change a service that runs open, nor reach it by a rebound name", {
  ignore: missingTools("chromium"),
}, async (t) => {
  await using server = await startServer(DENO_SERVER, {});
  const api = async (path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      ...(body !== undefined && { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
    return await res.json();
  };
  await api("/pipelines/documents", { title: "Kept", source: "kept.md", content: "a document of the owner" });
  await until("the owner's document is in", async () => (await api("/pipelines/status")).documents === 1);
  const tasks = (await api("/tasks")).total;
  // Chromium, with a name that points at the service as a rebinding attacker's DNS would make it point. Its
  // own Local Network Access checks (Chromium only) would stop the rebound page before the service sees
  // it: off, so that the test shows the service's own refusal, which holds in every browser.
  await using browser = await launchBrowser([
    "--host-resolver-rules=MAP rebind.test 127.0.0.1, MAP svc.test 127.0.0.1",
    "--disable-features=BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,LocalNetworkAccessChecks",
  ]);

  const port = new URL(server.url).port;
  for (
    const [what, page_origin] of [
      ["same site, another port (Sec-Fetch-Site: same-site)", "127.0.0.1"],
      ["another site: localhost against 127.0.0.1 (cross-site)", "localhost"],
    ]
  ) {
    await t.step(`${what}: no-cors posts and a text/plain form post are refused, nothing changes`, async () => {
      await using other = startOtherOrigin({ "/": attackPage(server.url) });
      await using page = await openPage(browser);
      const answers: string[] = [];
      page.on("response", (r) => r.url().startsWith(server.url) && answers.push(`${r.status()} ${r.url()}`));
      await page.goto(other.url.replace("127.0.0.1", page_origin));
      await page.evaluate(() => (globalThis as unknown as { attack: Promise<void> }).attack);
      await until(() => `5 answers, not ${JSON.stringify(answers)}`, () => answers.length === 5);
      assertEquals(answers.map((a) => a.split(" ")[0]), Array(5).fill("403"), answers.join("\n"));
      assertEquals([(await api("/tasks")).total, (await api("/pipelines/status")).documents], [tasks, 1]);
    });
  }

  await t.step("a rebound name (Host: rebind.test) is refused: its page gets nothing to read or change", async () => {
    await using page = await openPage(browser);
    const console = await page.goto(`http://rebind.test:${port}/console`);
    assertEquals(console?.status(), 421);
    // The attacker's server serves the page; then the name points at the service (the resolver rule).
    const attack = `http://rebind.test:${port}/attack`;
    await page.setRequestInterception(true);
    page.on(
      "request",
      (request) =>
        request.url() === attack
          ? request.respond({ contentType: "text/html", body: "<!doctype html><p>rebinding</p>" })
          : request.continue(),
    );
    await page.goto(attack);
    const statuses = await page.evaluate(async () => [
      (await fetch("/tasks")).status,
      (await fetch("/tasks", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ kind: "demo", input: { steps: 0 } }),
      })).status,
    ]);
    assertEquals(statuses, [421, 421]);
    assertEquals((await api("/tasks")).total, tasks);
  });

  await t.step("a name of ALLOWED_HOSTS is answered: its console loads, and its page's own writes pass", async () => {
    await using named = await startServer(DENO_SERVER, { ALLOWED_HOSTS: "svc.test" });
    await using page = await openPage(browser);
    const answers: number[] = [];
    page.on("response", (r) => answers.push(r.status()));
    const res = await page.goto(`http://svc.test:${new URL(named.url).port}/console`, { waitUntil: "networkidle0" });
    assertEquals(res?.status(), 200);
    assert(answers.length >= 3 && answers.every((s) => s === 200), `the console's loads: ${answers}`);
    const created = await page.evaluate(async () =>
      (await fetch("/tasks", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ kind: "demo", input: { steps: 0 } }),
      })).status
    );
    assertEquals(created, 201);
  });
});
