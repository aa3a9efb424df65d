/**
 * The service's browser-facing hardening in a real browser (Debian's chromium, headless) against
 * a real server process: the console and `/docs` work under their Content-Security-Policy with no
 * violation, while an injected inline script is refused; a page on another origin cannot frame
 * the console.
 *
 * @module
 */
import type { Page } from "puppeteer-core";
import { assert, assertEquals } from "./assert.ts";
import { fill, launchBrowser, openPage, waitForText } from "./browser.ts";
import { DENO_SERVER, startServer } from "./server_process.ts";
import { missingTools } from "./tools.ts";
import { until } from "./until.ts";

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
