/**
 * Walks a page by keyboard for browser tests: Tab from the first control to the last, then
 * Shift+Tab back, noting for each stop its accessible name (from chromium's accessibility tree)
 * and whether a focus indicator shows (a computed outline or box-shadow), and which visible,
 * enabled controls the walk never reached.
 *
 * @module
 */
import type { Page } from "puppeteer-core";

// deno-lint-ignore no-explicit-any
declare const document: any;
// deno-lint-ignore no-explicit-any
declare const getComputedStyle: (el: any) => any;

/** One stop of a Tab walk. */
export interface Stop {
  /** `button#cancel "Cancel"`: the element, for messages. */
  readonly what: string;
  /** The element's index among the page's controls (`data-kb`), or -1 for another focusable element. */
  readonly index: number;
  readonly name: string;
  readonly role: string;
  /** The computed outline or box-shadow while focused, "" when neither shows. */
  readonly ring: string;
  /** Where a link leads (its `href`); "" for other controls. */
  readonly target: string;
}

/** A walk: the stops forward, the stops backward, and the controls never reached. */
export interface Walk {
  readonly forward: readonly Stop[];
  readonly backward: readonly Stop[];
  readonly unreached: readonly string[];
}

/**
 * What should take the focus: links, buttons, fields, disclosure summaries, anything with a
 * tabindex, and anything with an interactive role (a `<span role="button">` Tab cannot reach is a bug).
 */
const CONTROLS = "a[href], button, input, select, textarea, summary, [tabindex], " +
  "[role=button], [role=link], [role=checkbox], [role=tab], [role=menuitem], [role=switch], [role=option]";

/** Marks the page's visible, enabled, tabbable controls with `data-kb`; returns their descriptions. */
function markControls(page: Page): Promise<string[]> {
  return page.evaluate((selector: string) => {
    const out: string[] = [];
    // deno-lint-ignore no-explicit-any
    for (const el of document.querySelectorAll(selector) as any[]) {
      delete el.dataset.kb;
      const closedDetails = el.closest("details:not([open])");
      const hidden = el.getClientRects().length === 0 ||
        (closedDetails && !(el.tagName === "SUMMARY" && el.parentElement === closedDetails));
      // Left out of the Tab order on purpose (`tabindex="-1"`: a heading that takes the focus on navigation).
      const untabbable = el.hasAttribute("tabindex") && el.tabIndex < 0;
      if (hidden || el.disabled || untabbable || el.type === "hidden") continue;
      el.dataset.kb = String(out.length);
      out.push(
        `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""} "${(el.textContent ?? "").trim().slice(0, 40)}"`,
      );
    }
    return out;
  }, CONTROLS);
}

/** The focused element as a {@link Stop}. */
async function here(page: Page): Promise<Stop | undefined> {
  const handle = await page.evaluateHandle(() => document.activeElement);
  const element = handle.asElement();
  const facts = await page.evaluate((el) => {
    if (!el || el === document.body) return undefined;
    const style = getComputedStyle(el);
    const outline = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0
      ? `${style.outlineWidth} ${style.outlineStyle} ${style.outlineColor}`
      : "";
    const shadow = style.boxShadow !== "none" ? style.boxShadow : "";
    return {
      what: `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""} "${(el.textContent ?? "").trim().slice(0, 40)}"`,
      index: el.dataset.kb === undefined ? -1 : Number(el.dataset.kb),
      ring: outline || shadow,
      target: el.tagName === "A" ? el.getAttribute("href") ?? "" : "",
    };
  }, handle);
  if (!facts || !element) return undefined;
  const ax = await page.accessibility.snapshot({ root: element, interestingOnly: false });
  await handle.dispose();
  return { ...facts, name: ax?.name ?? "", role: ax?.role ?? "" };
}

/**
 * Tabs through the page from its first control (the skip link) until the focus leaves the page
 * or comes back to a stop, then Shift+Tabs from the last stop back to the first.
 */
export async function walk(page: Page, limit = 150): Promise<Walk> {
  const controls = await markControls(page);
  await page.evaluate(() => {
    // deno-lint-ignore no-explicit-any
    for (const el of document.querySelectorAll("[data-kb-stop]") as any[]) delete el.dataset.kbStop;
    // Start before the first control: focus a throwaway element at the top of the body.
    const start = document.createElement("span");
    start.tabIndex = -1;
    document.body.prepend(start);
    start.focus();
    start.addEventListener("blur", () => start.remove(), { once: true });
  });
  const forward: Stop[] = [];
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press("Tab");
    const seen = await page.evaluate((n: number) => {
      const el = document.activeElement;
      if (!el || el === document.body || el.dataset.kbStop !== undefined) return true;
      el.dataset.kbStop = String(n);
      return false;
    }, i);
    if (seen) break;
    forward.push((await here(page))!);
  }
  const backward: Stop[] = [];
  if (forward.length > 1) {
    await page.evaluate((n: number) => document.querySelector(`[data-kb-stop="${n}"]`).focus(), forward.length - 1);
    await page.keyboard.down("Shift");
    try {
      for (let i = 0; i < forward.length - 1; i++) {
        await page.keyboard.press("Tab");
        const stop = await here(page);
        if (!stop) break;
        backward.push(stop);
      }
    } finally {
      await page.keyboard.up("Shift");
    }
  }
  const reached = new Set(forward.map((s) => s.index));
  return { forward, backward, unreached: controls.filter((_, i) => !reached.has(i)) };
}

/** What is wrong with a walk: controls not reached, stops without a name or a visible focus, a different way back. */
export function walkProblems(result: Walk): string[] {
  const problems = result.unreached.map((what) => `never reached by Tab: ${what}`);
  for (const stop of result.forward) {
    if (!stop.name.trim()) problems.push(`no accessible name: ${stop.what} (role ${stop.role})`);
    if (!stop.ring) problems.push(`no visible focus indicator: ${stop.what}`);
  }
  // Two buttons, or two links to different places, with one name: a screen reader's list of them cannot tell them apart.
  const byName = new Map<string, Set<string>>();
  for (const stop of result.forward.filter((s) => s.role === "button" || s.role === "link")) {
    const key = `${stop.role} "${stop.name}"`;
    byName.set(key, (byName.get(key) ?? new Set()).add(stop.role === "button" ? stop.what + byName.size : stop.target));
  }
  for (const [key, targets] of byName) {
    if (targets.size > 1) problems.push(`${targets.size} controls share one accessible name: ${key}`);
  }
  const back = result.backward.map((s) => s.what).reverse();
  const there = result.forward.slice(0, -1).map((s) => s.what);
  if (JSON.stringify(back) !== JSON.stringify(there)) {
    problems.push(
      `Shift+Tab does not retrace Tab:\n  Tab:       ${there.join(" → ")}\n  Shift+Tab: ${back.join(" → ")}`,
    );
  }
  return problems;
}
