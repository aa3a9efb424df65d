/**
 * A real browser for tests: Debian's `chromium`, headless, driven by `puppeteer-core` (which
 * downloads nothing). One browser per test file; pages are cheap.
 *
 * @example
 * ```ts
 * Deno.test("a page", { ignore: missingTools("chromium") }, async () => {
 *   await using browser = await launchBrowser();
 *   const page = await browser.newPage();
 * });
 * ```
 *
 * @module
 */
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { requireTool } from "./tools.ts";

/** Where browser tests write screenshots (gitignored). */
export const ARTIFACTS = new URL("../test-artifacts/", import.meta.url).pathname;

/** Launches headless chromium (on a free debugging port chosen by the browser); closes on dispose. */
export async function launchBrowser(): Promise<Browser & AsyncDisposable> {
  const browser = await puppeteer.launch({
    executablePath: requireTool("chromium"),
    headless: true,
    // As root (CI) chromium refuses to start with its sandbox; the pages are our own.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
  return Object.assign(browser, { [Symbol.asyncDispose]: () => browser.close() });
}

/** A new page of `browser`, closed on dispose. */
export async function openPage(browser: Browser): Promise<Page & AsyncDisposable> {
  const page = await browser.newPage();
  return Object.assign(page, { [Symbol.asyncDispose]: () => page.close() });
}
