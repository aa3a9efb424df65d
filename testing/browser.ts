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

// Functions that run in the page see its globals; this tells the type check (which has no DOM) about them.
// deno-lint-ignore no-explicit-any
declare const document: any;

/** Where browser tests write screenshots (gitignored). */
export const ARTIFACTS = new URL("../test-artifacts/", import.meta.url).pathname;

/**
 * Launches headless chromium (on a free debugging port chosen by the browser), with `args` besides
 * ours (e.g. `--host-resolver-rules=MAP rebind.test 127.0.0.1`); closes on dispose.
 */
export async function launchBrowser(args: readonly string[] = []): Promise<Browser & AsyncDisposable> {
  const browser = await puppeteer.launch({
    executablePath: requireTool("chromium"),
    headless: true,
    // As root (CI) chromium refuses to start with its sandbox; the pages are our own.
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", ...args],
  });
  return Object.assign(browser, { [Symbol.asyncDispose]: () => browser.close() });
}

/**
 * Replaces the text of the field `selector` by typing `value` over it, as a person would. (Emptying
 * it with `el.value = ""` fires no input event: a re-render in between — a clock, a poll — puts the
 * old value back, and the typing lands after it.)
 */
export async function fill(page: Page, selector: string, value: string): Promise<void> {
  await page.focus(selector);
  await page.$eval(selector, (e) => (e as unknown as { select(): void }).select());
  await page.keyboard.press("Backspace");
  if (value !== "") await page.type(selector, value);
}

/** A new page of `browser`, closed on dispose. */
export async function openPage(browser: Browser): Promise<Page & AsyncDisposable> {
  const page = await browser.newPage();
  return Object.assign(page, { [Symbol.asyncDispose]: () => page.close() });
}

/** The text of `selector` on `page`, or `""` when nothing matches. */
export const textOf = (page: Page, selector: string): Promise<string> =>
  page.$eval(selector, (e) => e.textContent ?? "").catch(() => "");

/** Waits until `selector`'s text matches `pattern`, saying what it was when it did not; answers the text. */
export async function waitForText(page: Page, selector: string, pattern: RegExp, timeout = 20_000): Promise<string> {
  try {
    await page.waitForFunction(
      (s: string, source: string) => new RegExp(source).test(document.querySelector(s)?.textContent ?? ""),
      { timeout },
      selector,
      pattern.source,
    );
  } catch (error) {
    throw new Error(`${selector} never matched ${pattern}; it reads ${JSON.stringify(await textOf(page, selector))}`, {
      cause: error,
    });
  }
  return await textOf(page, selector);
}
