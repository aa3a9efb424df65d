/**
 * The console by keyboard alone, in Debian's chromium: on every page — sign-in,
 * the task list (filters, paging, both start forms), a task (tree, answer box, cancel, delete with
 * its confirmation), pipelines, the rate-limit panel — Tab reaches every visible control, each
 * shows a focus indicator and has an accessible name, Shift+Tab retraces the way, and Enter and
 * Space do what a click does.
 *
 * @module
 */
import type { Browser, Page } from "puppeteer-core";
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { launchBrowser, openPage, waitForText } from "../testing/browser.ts";
import { DENO_SERVER, startServer } from "../testing/server_process.ts";
import { testTokens } from "../testing/auth_tokens.ts";
import { missingTools } from "../testing/tools.ts";
import { type Walk, walk, walkProblems } from "../testing/keyboard.ts";

// deno-lint-ignore no-explicit-any
declare const document: any;

/** Walks the page and fails with every problem found; returns the walk. */
async function walkClean(page: Page, name: string): Promise<Walk> {
  const result = await walk(page);
  assert(result.forward.length > 0, `${name}: Tab reached nothing`);
  assertEquals(walkProblems(result), [], `${name}: keyboard problems`);
  return result;
}

/** Tabs (forward) until `selector` has the focus; fails when it never does. */
async function tabTo(page: Page, selector: string, limit = 80): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await page.evaluate((s: string) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached ${selector}`);
}

/**
 * Waits until the view has put the focus where it puts it once on screen (in an effect, after the
 * paint): its heading, as the rate-limit, pipelines, task and sign-in views do, or the control
 * `selector` names (a task's answer box). A walk begun before that has its next Tab start there.
 */
async function focusSettled(page: Page, selector = "main h1[tabindex='-1']"): Promise<void> {
  await page.waitForFunction((s: string) => document.activeElement?.matches(s) ?? false, {}, selector);
}

/** Puts the focus at the top of the page, as a fresh load does. */
async function fromTop(page: Page): Promise<void> {
  await page.evaluate(() => {
    const start = document.createElement("span");
    start.tabIndex = -1;
    document.body.prepend(start);
    start.focus();
    start.addEventListener("blur", () => start.remove(), { once: true });
  });
}

async function openScenario(t: Deno.TestContext, browser: Browser): Promise<void> {
  await using server = await startServer(DENO_SERVER, { LOG_LEVEL: "warn" });
  await using page = await openPage(browser);
  await page.setViewport({ width: 1280, height: 900 });
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  const api = async (path: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { "content-type": "application/json" },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return await res.json();
  };
  // 21 tasks in one session: two pages, so Next and Previous both work.
  for (let i = 0; i < 21; i++) await api("/tasks", { kind: "demo", session_id: "kb", input: { steps: 0 } });

  await t.step(
    "the walk finds what it must: a control Tab cannot reach, one without a name or focus ring",
    async () => {
      await page.goto(`${server.url}/console#/rate-limit`);
      await page.waitForSelector("#rl-send");
      await focusSettled(page);
      await page.evaluate(() => {
        const main = document.querySelector("main");
        main.insertAdjacentHTML(
          "beforeend",
          '<span role="button" id="kb-unreachable">Go</span><button id="kb-bare"></button>' +
            '<button id="kb-twin-1">Same</button><button id="kb-twin-2">Same</button>',
        );
        // Through the CSSOM: the console's CSP refuses style attributes in markup, as it should.
        document.getElementById("kb-bare").style.outline = "none";
      });
      const problems = walkProblems(await walk(page));
      for (
        const expected of [
          /^never reached by Tab: span#kb-unreachable "Go"$/,
          /^no accessible name: button#kb-bare ""/,
          /^no visible focus indicator: button#kb-bare ""$/,
          /^2 controls share one accessible name: button "Same"$/,
        ]
      ) assert(problems.some((p) => expected.test(p)), `${expected} not in ${JSON.stringify(problems)}`);
      await page.evaluate(() => document.querySelectorAll("[id^=kb-]").forEach((e: { remove(): void }) => e.remove()));
    },
  );

  await t.step("the task list: both start forms opened by keyboard, filters, paging", async () => {
    await page.goto(`${server.url}/console#/?session=kb`);
    await waitForText(page, "main", /Tasks 1–20 of 21/);
    // The start forms open with Enter and Space on their summaries.
    await fromTop(page);
    await tabTo(page, "details.card:nth-of-type(1) summary");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelector("details.card:nth-of-type(1)").open);
    await tabTo(page, "details.card:nth-of-type(2) summary");
    await page.keyboard.press(" ");
    await page.waitForFunction(() => document.querySelector("details.card:nth-of-type(2)").open);
    await page.waitForSelector("#task-input-fields:not([hidden])");
    await walkClean(page, "the task list");
    // Next by keyboard, then Previous.
    await fromTop(page);
    await tabTo(page, "nav.pager button:nth-of-type(2)");
    await page.keyboard.press("Enter");
    await waitForText(page, "main", /Tasks 21–21 of 21/);
    await walkClean(page, "the task list's second page");
    await fromTop(page);
    await tabTo(page, "nav.pager button:nth-of-type(1)");
    await page.keyboard.press(" ");
    await waitForText(page, "main", /Tasks 1–20 of 21/);
    // The status filter by keyboard: the list shows the chosen status only.
    await api("/tasks", { kind: "demo", session_id: "kb", input: { steps: 0, ask: "Colour?" } });
    await waitForText(page, "main", /of 22/);
    await fromTop(page);
    await tabTo(page, "form.filters select");
    await page.keyboard.press("ArrowDown"); // in progress
    await page.keyboard.press("ArrowDown"); // input required
    await waitForText(page, "main", /Tasks 1–1 of 1/);
  });

  await t.step("the start-a-demo form submits with Enter and opens the task", async () => {
    await page.goto(`${server.url}/console#/`);
    await page.waitForSelector("details.card summary");
    await fromTop(page);
    await tabTo(page, "details.card:nth-of-type(1) summary");
    await page.keyboard.press("Enter");
    await tabTo(page, "details.card:nth-of-type(1) input");
    await page.keyboard.down("Control");
    await page.keyboard.press("a");
    await page.keyboard.up("Control");
    await page.keyboard.type("by keyboard");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => location.hash.startsWith("#/tasks/"));
    await waitForText(page, "#answer", /by keyboard/);
    await page.waitForSelector("details summary"); // its result (JSON), folded
    await walkClean(page, "a finished task");
  });

  await t.step(
    "a task: the tree's buttons and links, the answer box, cancel and delete with its confirmation",
    async () => {
      const created = await api("/tasks", {
        kind: "demo",
        input: { steps: 50, delay_ms: 200, children: 2, depth: 2, tokens: ["a"] },
      });
      await page.goto(`${server.url}/console#/tasks/${encodeURIComponent(created.task_id)}`);
      await page.waitForFunction(() => document.querySelectorAll(".tree li > .s-in_progress").length === 7);
      await walkClean(page, "a running task with a tree");
      // "Also cancel its sub-tasks" toggles with Space; Cancel with Enter.
      await fromTop(page);
      await tabTo(page, "input[type=checkbox]");
      await page.keyboard.press(" ");
      assertEquals(await page.$eval("input[type=checkbox]", (c) => (c as { checked: boolean }).checked), false);
      await page.keyboard.press(" ");
      await tabTo(page, "#cancel");
      await page.keyboard.press("Enter");
      assertEquals(await waitForText(page, "[role=status]", /Cancelled/), "Cancelled 7 tasks.");
      await waitForText(page, "#task-status", /^cancelled$/);
      await walkClean(page, "a cancelled task");
      // Delete: Space on the button, the confirmation dismissed (nothing happens), then accepted with Enter.
      const answers = [false, true];
      const asked: string[] = [];
      const onDialog = (dialog: { message(): string; accept(): Promise<void>; dismiss(): Promise<void> }) => {
        asked.push(dialog.message());
        void (answers.shift() ? dialog.accept() : dialog.dismiss());
      };
      page.on("dialog", onDialog);
      await fromTop(page);
      await tabTo(page, "#delete");
      await page.keyboard.press(" ");
      await page.waitForFunction(() => document.activeElement?.id === "delete");
      assertMatch(await page.evaluate(() => location.hash), /^#\/tasks\//);
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => location.hash === "#/");
      page.off("dialog", onDialog);
      assertEquals(asked.length, 2);
      assertMatch(asked[1], /Delete task .* cannot be undone/);
    },
  );

  await t.step("a task waiting for input: answered from the keyboard", async () => {
    const created = await api("/tasks", { kind: "demo", input: { steps: 0, ask: "Which colour?" } });
    await page.goto(`${server.url}/console#/tasks/${encodeURIComponent(created.task_id)}`);
    await focusSettled(page, "#answer-input");
    await walkClean(page, "a task waiting for input");
    await fromTop(page);
    await tabTo(page, "#answer-input");
    await page.keyboard.type("teal");
    await page.keyboard.press("Enter");
    await waitForText(page, "#task-status", /^done$/);
    assertEquals((await api(`/tasks/${created.task_id}`)).result.input, "teal");
  });

  await t.step("pipelines: add, search and ask by keyboard", async () => {
    await page.goto(`${server.url}/console#/pipelines`);
    await waitForText(page, "#pipeline-status", /Documents0/);
    await walkClean(page, "pipelines");
    await fromTop(page);
    await tabTo(page, "#doc-title");
    await page.keyboard.type("Harbours");
    await page.keyboard.press("Tab");
    await page.keyboard.type("docs/harbours.md");
    await page.keyboard.press("Tab");
    await page.keyboard.type("A harbour shelters boats from storms.");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await waitForText(page, "#pipeline-status", /Documents1/);
    await fromTop(page);
    await tabTo(page, "#search-input");
    await page.keyboard.type("harbour");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#hits mark");
    await tabTo(page, "#ask-input");
    await page.keyboard.type("What shelters boats?");
    await page.keyboard.press("Enter");
    await waitForText(page, "#ask-sources", /Harbours/);
    await walkClean(page, "pipelines with hits and an answer");
  });

  await t.step("the rate-limit panel: a request sent with Space", async () => {
    await page.goto(`${server.url}/console#/rate-limit`);
    await page.waitForSelector("#rl-caller");
    await focusSettled(page);
    await walkClean(page, "the rate-limit panel");
    await fromTop(page);
    await tabTo(page, "#rl-caller");
    await page.keyboard.type(`-${crypto.randomUUID()}`);
    await tabTo(page, "#rl-send");
    await page.keyboard.press(" ");
    await waitForText(page, "#rl-budget", /Answered 200\. 9 of 10 requests left/);
  });
  assertEquals(pageErrors, []);
}

async function signInScenario(t: Deno.TestContext, browser: Browser): Promise<void> {
  const tokens = testTokens();
  const file = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(file, tokens.file);
  try {
    await using server = await startServer(DENO_SERVER, { LOG_LEVEL: "warn", SERVICE_TOKENS_FILE: file });
    await using page = await openPage(browser);
    await page.setViewport({ width: 1280, height: 900 });
    await t.step("sign-in: the form by keyboard, a refused token, then signed in and out", async () => {
      await page.goto(`${server.url}/console`);
      await page.waitForSelector("#token-input");
      await focusSettled(page);
      await walkClean(page, "sign-in");
      await fromTop(page);
      await tabTo(page, "#token-input");
      await page.keyboard.type("not-a-token");
      await page.keyboard.press("Enter");
      await waitForText(page, "#sign-in-error", /does not know this token/);
      await walkClean(page, "sign-in with its error");
      await fromTop(page);
      await tabTo(page, "#token-input");
      // Ctrl+A selects the refused token; typing replaces it.
      await page.keyboard.down("Control");
      await page.keyboard.press("a");
      await page.keyboard.up("Control");
      await page.keyboard.type(tokens.admin);
      await page.keyboard.press("Enter");
      await waitForText(page, "main", /No tasks\./);
      await walkClean(page, "signed in");
      await fromTop(page);
      await tabTo(page, "#sign-out");
      await page.keyboard.press("Enter");
      await page.waitForSelector("#token-input");
    });
  } finally {
    await Deno.remove(file);
  }
}

Deno.test({
  name: "the console by keyboard in chromium",
  ignore: missingTools("chromium"),
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    await using browser = await launchBrowser();
    await t.step("running open: every page", (t) => openScenario(t, browser));
    await t.step("signed in: the sign-in form", (t) => signInScenario(t, browser));
  },
});
