/**
 * The console in a real browser: Debian's chromium, headless, against a real server
 * process. Starts a demo task from the page and watches its tokens arrive (a double click makes
 * one task), follows a session's list live, resumes a dropped stream (through a proxy that cuts
 * it) without a duplicate line, answers a task's question, cancels a tree and sees the count,
 * deletes after the confirmation; screenshots at 1280 and 375 px (light and dark) go to `test-artifacts/`; axe-core
 * finds no serious or critical violation in either scheme.
 *
 * @module
 */
import type { Browser, Page } from "puppeteer-core";
import axeSource from "axe-core/axe.min.js" with { type: "text" };
import { assert, assertEquals, assertMatch } from "../testing/assert.ts";
import { ARTIFACTS, fill, launchBrowser, openPage, textOf, waitForText } from "../testing/browser.ts";
import { DENO_SERVER, startServer } from "../testing/server_process.ts";
import { startTcpProxy } from "../testing/tcp_proxy.ts";
import { testTokens } from "../testing/auth_tokens.ts";
import { missingTools } from "../testing/tools.ts";
import { startRedis } from "../testing/redis_server.ts";

// Functions that run in the page see its globals; these tell the type check (which has no DOM) about them.
// deno-lint-ignore no-explicit-any
declare const document: any;
declare const innerWidth: number;
declare const sessionStorage: { length: number };

/** The page's console errors as they come (a failed request is one: "Failed to load resource: … 404"). */
function collectConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`${message.text()} ${message.location().url ?? ""}`);
  });
  return errors;
}

/** axe-core's serious and critical violations on the page as it is. */
async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated, not added as a <script>: the console's CSP refuses inline scripts, as it should.
  if (!await page.evaluate(() => "axe" in globalThis)) await page.evaluate(axeSource);
  // deno-lint-ignore no-explicit-any
  const violations: any[] = await page.evaluate(async () => (await (globalThis as any).axe.run()).violations);
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n: { target: string[] }) => n.target).join(", ")}`);
}

/** Screenshots at 1280 and 375 px, light and dark, each checked by axe-core. */
async function shootAndCheck(page: Page, name: string): Promise<void> {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: scheme }]);
    for (const width of [1280, 375]) {
      await page.setViewport({ width, height: 900 });
      await page.screenshot({ path: `${ARTIFACTS}console-${name}-${width}-${scheme}.png`, fullPage: true });
      // At 375 px nothing may be wider than the screen.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
      assert(overflow <= 0, `${name} at ${width} px (${scheme}) is ${overflow} px wider than the window`);
    }
    assertEquals(await axeViolations(page), [], `${name} (${scheme}): axe-core found serious violations`);
  }
  await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "light" }]);
  await page.setViewport({ width: 1280, height: 900 });
}

/** Running open (no tokens), as for local use. */
async function openScenario(t: Deno.TestContext, browser: Browser): Promise<void> {
  // The pipelines panel's "Run the source folder" reads this folder.
  const sourceDir = await Deno.makeTempDir({ prefix: "storectl-console-source-" });
  await using _sourceDir = { [Symbol.asyncDispose]: () => Deno.remove(sourceDir, { recursive: true }) };
  await Deno.mkdir(`${sourceDir}/coast`);
  await Deno.writeTextFile(
    `${sourceDir}/coast/beacons.md`,
    "# Beacons\nA beacon burns on the headland so that sailors find the harbour. Keepers of a beacon carry " +
      "wood up the hill every evening.",
  );
  await Deno.writeTextFile(`${sourceDir}/tides.txt`, "Tides rise and fall twice a day with the moon.");
  await using server = await startServer(DENO_SERVER, { LOG_LEVEL: "warn", PIPELINE_SOURCE_DIR: sourceDir });
  // Closed before the server stops, so that no stream of the page holds the server's shutdown.
  await using page = await openPage(browser);
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  const consoleErrors = collectConsoleErrors(page);
  const api = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${server.url}${path}`, {
      ...init,
      headers: { "content-type": "application/json", ...init.headers },
    });
    return { status: res.status, body: res.status === 204 ? null : await res.json() };
  };
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(`${server.url}/console`);

  await t.step("the list says how it stays current: polling, as the global stream is off by default", async () => {
    await waitForText(page, "#list-mode", /Polling every 3 s/);
    await waitForText(page, "main", /No tasks\./);
    await shootAndCheck(page, "list-empty");
    // It knows the stream is off without asking it (a 404 would be a red line in the browser's console).
    assertEquals(consoleErrors.splice(0), []);
  });

  await t.step(
    "the header fits at 375 px and links the tasks; the search and ask buttons sit on their inputs' line",
    async () => {
      await page.setViewport({ width: 375, height: 800 });
      const links = await page.$$eval(
        "header a",
        (as) =>
          as.map((a) => ({
            text: a.textContent,
            href: a.getAttribute("href"),
            right: a.getBoundingClientRect().right,
          })),
      );
      assert(
        links.some((a) => a.text === "Tasks" && a.href === "#/"),
        JSON.stringify(links),
      );
      assert(
        links.every((a) => a.right <= 375),
        `a header link is cut at 375 px: ${JSON.stringify(links)}`,
      );
      const header = await page.$eval("header", (h) => ({ scroll: h.scrollWidth, client: h.clientWidth }));
      assert(header.scroll <= header.client, `the header overflows at 375 px: ${JSON.stringify(header)}`);
      await page.goto(`${server.url}/console#/pipelines`);
      for (const width of [375, 1280]) {
        await page.setViewport({ width, height: 800 });
        for (const form of ["form[role=search]", "section[aria-labelledby=ask-title] form"]) {
          const [input, button] = await page.$eval(form, (f) =>
            ["input", "button"].map((tag) => {
              const r = f.querySelector(tag).getBoundingClientRect();
              return { top: Math.round(r.top), bottom: Math.round(r.bottom) };
            }));
          assertEquals(button, input, `${form} at ${width} px: the button is not on its input's line`);
        }
      }
      await page.setViewport({ width: 1280, height: 900 });
      await page.goto(`${server.url}/console#/`);
    },
  );

  let taskId = "";
  await t.step("start a demo task from the page (a double click makes one) and watch its tokens", async () => {
    await page.click("details.card summary");
    await fill(page, "details.card input", "alpha beta gamma");
    await page.$eval("details.card form", (form) => {
      const button = form.querySelector("button[type=submit]") as { click(): void };
      button.click();
      button.click();
    });
    await page.waitForFunction(() => location.hash.startsWith("#/tasks/"));
    taskId = decodeURIComponent(await page.evaluate(() => location.hash.slice("#/tasks/".length)));
    assertEquals(await waitForText(page, "#tokens", /alpha beta gamma/), "alpha beta gamma");
    await waitForText(page, "#task-status", /^done$/);
    assertEquals(await waitForText(page, "#answer", /./), "alpha beta gamma");
    await waitForText(page, "#log", /token.*alpha/);
    const list = await api("/tasks");
    assertEquals(list.body.total, 1, `one task, not two: ${JSON.stringify(list.body)}`);
    await shootAndCheck(page, "task-done");
  });

  await t.step("the list shows it, linked, with its times relative and kept current", async () => {
    await page.goto(`${server.url}/console#/`);
    await waitForText(page, "main", /Tasks 1–1 of 1/);
    assert(await page.$(`a[href="#/tasks/${encodeURIComponent(taskId)}"]`), "no link to the task");
    const task = (await api(`/tasks/${taskId}`)).body;
    const times = () =>
      page.$$eval(".tasks li time", (ts) => ts.map((t) => [t.getAttribute("datetime"), t.textContent ?? ""]));
    const [created, updated] = await times();
    assertEquals([created[0], updated[0]], [task.created_at, task.updated_at]);
    assertMatch(created[1], /^created (just now|\d+ s ago)$/);
    assertMatch(updated[1], /^updated (just now|\d+ s ago)$/);
    // The clock moves on by itself: a later second shows a later "s ago".
    const seconds = (text: string) => Number(text.match(/(\d+) s ago/)?.[1] ?? 0);
    await page.waitForFunction(
      (before: number) => {
        const text = document.querySelector(".tasks li time")?.textContent ?? "";
        return Number(text.match(/(\d+) s ago/)?.[1] ?? 0) > before;
      },
      { timeout: 5_000 },
      seconds(created[1]),
    );
  });

  await t.step(
    "the list is of top-level tasks, newest first: a tree started after 25 others is on page one",
    async () => {
      const others: string[] = [];
      for (let i = 0; i < 25; i++) {
        others.push(
          (await api("/tasks", { method: "POST", body: '{"kind":"demo","input":{"steps":0}}' })).body.task_id,
        );
      }
      await page.goto(`${server.url}/console#/`);
      await page.click("details.card summary");
      await fill(page, "details.card input[type=number]", "2");
      await page.click("details.card button[type=submit]");
      await page.waitForFunction(
        (before: string) => location.hash.startsWith("#/tasks/") && location.hash !== before,
        {},
        `#/tasks/${encodeURIComponent(taskId)}`,
      );
      const tree = decodeURIComponent(await page.evaluate(() => location.hash.slice("#/tasks/".length)));
      await waitForText(page, "#task-status", /^done$/);
      await page.goto(`${server.url}/console#/`);
      await waitForText(page, "main", /Tasks 1–20 of 27/);
      const first = await textOf(page, ".tasks li");
      assertMatch(first, new RegExp(`${tree}.*done.*2 sub-tasks`, "s"));
      // Its sub-tasks are in the full list, each naming its parent.
      await page.click("#roots-only");
      await waitForText(page, "main", /Tasks 1–20 of 29/);
      const rows = await page.$$eval(".tasks li", (lis) => lis.slice(0, 3).map((li) => li.textContent ?? ""));
      assertEquals(rows.filter((row) => row.includes(`sub-task of ${tree}`)).length, 2, rows.join("\n"));
      await page.click("#roots-only");
      await waitForText(page, "main", /Tasks 1–20 of 27/);
      for (const id of [...others, tree]) assertEquals((await api(`/tasks/${id}`, { method: "DELETE" })).status, 204);
    },
  );

  await t.step("a session's list follows the session stream and shows a new task without a reload", async () => {
    const session = (await api(`/tasks/${taskId}`)).body.session_id;
    await page.goto(`${server.url}/console#/tasks/${encodeURIComponent(taskId)}`);
    await (await page.waitForSelector(`a[href="#/?session=${encodeURIComponent(session)}"]`))!.click();
    await waitForText(page, "#list-mode", /Live: following the session stream/);
    await waitForText(page, "main", /Tasks 1–1 of 1/);
    await api("/tasks", {
      method: "POST",
      body: JSON.stringify({ kind: "demo", session_id: session, input: { steps: 1 } }),
    });
    await waitForText(page, "main", /Tasks 1–2 of 2/);
  });

  await t.step("a dropped stream resumes with Last-Event-ID: shown as reconnected, no event twice", async () => {
    await using proxy = startTcpProxy(Number(new URL(server.url).port));
    const tokens = Array.from({ length: 40 }, (_, i) => `w${i} `);
    const created = await api("/tasks", {
      method: "POST",
      body: JSON.stringify({ kind: "demo", input: { steps: 20, delay_ms: 150, tokens } }),
    });
    await page.goto(`http://127.0.0.1:${proxy.port}/console#/tasks/${encodeURIComponent(created.body.task_id)}`);
    await waitForText(page, "#log", /step 3 of 20/);
    proxy.dropAll();
    await waitForText(page, "#connection", /reconnected|ended/);
    await waitForText(page, "#task-status", /^done$/);
    const log = await page.$$eval("#log li", (items) => items.map((li) => li.textContent ?? ""));
    assert(log.some((line) => /reconnected.*resumed after event \d+/.test(line)), log.join("\n"));
    const ids = log.map((line) => line.match(/^#(\d+)/)?.[1]).filter((id) => id !== undefined).map(Number);
    assertEquals(ids, Array.from({ length: ids.length }, (_, i) => i + 1), "every event once, in order");
    assertEquals(await textOf(page, "#tokens"), tokens.join(""));
  });

  await t.step("answer a task's question in its input box", async () => {
    const created = await api("/tasks", {
      method: "POST",
      body: JSON.stringify({ kind: "demo", input: { steps: 1, tokens: ["q"], ask: "Which colour?" } }),
    });
    await page.goto(`${server.url}/console#/tasks/${encodeURIComponent(created.body.task_id)}`);
    await page.waitForSelector("#answer-input", { timeout: 20_000 });
    assertMatch(await textOf(page, "form.input label"), /Which colour\?/);
    await shootAndCheck(page, "task-input");
    await page.type("#answer-input", "teal");
    await page.click("form.input button[type=submit]");
    await waitForText(page, "#task-status", /^done$/);
    assertEquals((await api(`/tasks/${created.body.task_id}`)).body.result.input, "teal");
  });

  await t.step("cancel a tree: the page says how many tasks it moved", async () => {
    const created = await api("/tasks", {
      method: "POST",
      body: JSON.stringify({ kind: "demo", input: { steps: 100, delay_ms: 200, children: 2, depth: 2 } }),
    });
    await page.goto(`${server.url}/console#/tasks/${encodeURIComponent(created.body.task_id)}`);
    // The root, 2 children and 4 grandchildren, all running.
    await page.waitForFunction(
      () => document.querySelectorAll(".tree li > .s-in_progress").length === 7,
      { timeout: 20_000 },
    );
    await shootAndCheck(page, "task-tree");
    // By keyboard: the first sub-tree's disclosure button folds it away and opens it again.
    const toggle = ".tree > li > ul > li > .toggle";
    await page.focus(toggle);
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelectorAll(".tree li > .s-in_progress").length === 5);
    assertEquals(await page.$eval(toggle, (b) => b.getAttribute("aria-expanded")), "false");
    await page.keyboard.press(" ");
    await page.waitForFunction(() => document.querySelectorAll(".tree li > .s-in_progress").length === 7);
    await page.click("#cancel");
    assertEquals(await waitForText(page, "[role=status]", /Cancelled/), "Cancelled 7 tasks.");
    await waitForText(page, "#task-status", /^cancelled$/);
    await waitForText(page, "#connection", /ended/);
  });

  await t.step("delete after the confirmation: back to the list, the task gone", async () => {
    let asked = "";
    page.once("dialog", (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await page.click("#delete");
    await page.waitForFunction(() => location.hash === "#/");
    assertMatch(asked, /Delete task .* cannot be undone/);
    await waitForText(page, "main", /Tasks 1–4 of 4/);
  });

  await t.step("pipelines: run the source folder from the page; the status counts its documents", async () => {
    await page.goto(`${server.url}/console#/pipelines`);
    await waitForText(page, "#pipeline-status", /Documents0/);
    await page.click("#run-full");
    await waitForText(page, "[role=status]", /Run of the source folder: task .* done\./);
    await waitForText(page, "#pipeline-status", /Documents2.*Stateidle/);
    const last = await page.$eval("#pipeline-status a", (a) => a.textContent ?? "");
    assertEquals((await api(`/tasks/${last}`)).body.kind, "pipeline_full");
  });

  await t.step(
    "pipelines: add a document, see the status, search with highlights, ask and watch the answer",
    async () => {
      await page.goto(`${server.url}/console#/pipelines`);
      await waitForText(page, "#pipeline-status", /Documents2/);
      await page.type("#doc-title", "Lighthouses");
      await page.type("#doc-source", "docs/lighthouses.md");
      await page.type(
        "#doc-content",
        "A lighthouse keeper trims the lamp every evening. Lighthouses guide ships along rocky coasts at night.",
      );
      await page.click("#doc-add");
      await waitForText(page, "[role=status]", /Document: task .* done\./);
      await waitForText(page, "#pipeline-status", /Documents3/);
      await page.type("#search-input", "lamp");
      await page.click("form[role=search] button[type=submit]");
      await page.waitForSelector("#hits mark");
      assertEquals(await page.$$eval("#hits mark", (marks) => marks.map((m) => m.textContent)), ["lamp"]);
      assertEquals(await textOf(page, "#hits-count"), "1 best match");
      assertMatch(await textOf(page, "#hits"), /docs\/lighthouses\.md/);
      // Words of both a folder's document and the added one: each hit with its source, every word marked.
      await fill(page, "#search-input", "keeper beacon");
      await page.click("form[role=search] button[type=submit]");
      await page.waitForFunction(() => document.querySelectorAll("#hits > li").length === 2);
      const hits = await page.$$eval("#hits > li", (items) =>
        items.map((li) => ({
          source: li.querySelector(".muted")?.textContent ?? "",
          marks: [...li.querySelectorAll("mark")].map((m) => (m.textContent ?? "").toLowerCase()),
        })));
      const beacons = hits.find((h) => /coast\/beacons\.md/.test(h.source));
      assert(beacons, `no hit from the folder's coast/beacons.md: ${JSON.stringify(hits)}`);
      assert(beacons.marks.includes("beacon") && beacons.marks.includes("keeper"), JSON.stringify(beacons));
      assert(hits.some((h) => /docs\/lighthouses\.md/.test(h.source) && h.marks.includes("keeper")));

      // The answer streams: record each text #ask-answer shows until the sources arrive.
      await page.evaluate(() => {
        const seen: string[] = [];
        (globalThis as Record<string, unknown>).answerTexts = seen;
        new (globalThis as unknown as {
          MutationObserver: new (cb: () => void) => { observe(n: unknown, o: unknown): void };
        }).MutationObserver(() => {
          const now = document.querySelector("#ask-answer")?.textContent ?? "";
          if (document.querySelector("#ask-sources") === null && now !== "" && seen.at(-1) !== now) seen.push(now);
        }).observe(document.querySelector("main"), { childList: true, subtree: true, characterData: true });
      });
      await page.type("#ask-input", "Why does a beacon burn on the headland?");
      await page.click("section[aria-labelledby=ask-title] button[type=submit]");
      await waitForText(page, "#ask-sources", /Beacons/);
      const answer = await textOf(page, "#ask-answer");
      assertMatch(answer, /A beacon burns on the headland so that sailors find the harbour\..*\[1\]$/);
      assertMatch(await textOf(page, "#ask-sources"), /coast\/beacons\.md/);
      const partial = await page.evaluate(() => (globalThis as Record<string, unknown>).answerTexts as string[]);
      assert(
        partial.length >= 3 && partial.every((p) => answer.startsWith(p)) && partial[0].length < answer.length,
        `the answer did not arrive token by token before its sources: ${JSON.stringify(partial)}`,
      );
      await shootAndCheck(page, "pipelines");
    },
  );

  await t.step(
    "start a task of any kind: JSON checked as typed against the kind's schema from /openapi.json",
    async () => {
      await page.goto(`${server.url}/console#/`);
      const form = "details.card:nth-of-type(2)";
      const submit = `${form} button[type=submit]`;
      await (await page.waitForSelector(`${form} summary`))!.click();
      const disabled = () => page.$eval(submit, (b) => (b as { disabled: boolean }).disabled);
      const setValue = (selector: string, value: string) => fill(page, selector, value);
      const posts: string[] = [];
      const onRequest = (r: { method(): string; url(): string }) => {
        if (r.method() === "POST" && new URL(r.url()).pathname === "/tasks") posts.push(r.url());
      };
      page.on("request", onRequest);
      await waitForText(page, "#task-input-fields", /steps \(integer, 0–1000\)/);
      await setValue("#task-input", '{"steps": ');
      await waitForText(page, "#task-input-errors", /Not JSON/);
      assert(await disabled());
      // A field the schema refuses: said as typed, before anything is sent, and Start stays disabled.
      await setValue("#task-input", '{"steps": "three", "colour": "teal"}');
      assertEquals(
        await waitForText(page, "#task-input-errors", /input\.steps/),
        'input.steps: expected an integer, got a stringinput: unknown field "colour"',
      );
      assert(await disabled(), "Start is enabled with an invalid input");
      await page.focus("#task-input");
      await page.keyboard.down("Control");
      await page.keyboard.press("Enter");
      await page.keyboard.up("Control");
      await page.$eval(`${form} form`, (f) => (f as { requestSubmit(): void }).requestSubmit());
      await shootAndCheck(page, "start-task-invalid");
      await setValue("#task-kind", "answer");
      await setValue("#task-input", '{"question": "x", "k": 99}');
      await waitForText(page, "#task-input-errors", /^input\.k: expected at most 20, got 99$/);
      await setValue("#task-kind", "nonsense");
      await waitForText(page, "#task-input-errors", /^kind: the service has no kind “nonsense”; it runs demo, /);
      assert(await disabled());
      assertEquals(posts, [], "an invalid input was sent");
      // What a schema cannot say (a blank question) is the service's to refuse: its 422 names the field.
      await setValue("#task-kind", "answer");
      await setValue("#task-input", '{"question": "   "}');
      await page.waitForFunction((s: string) => !document.querySelector(s).disabled, {}, submit);
      await page.click(submit);
      await waitForText(page, "#task-input-errors", /^input\.question: question must not be blank$/);
      assertEquals(posts.length, 1);
      page.off("request", onRequest);
      await setValue("#task-kind", "demo");
      await setValue("#task-input", '{"steps": 1, "tokens": ["any ", "kind"]}');
      await page.waitForFunction((s: string) => !document.querySelector(s).disabled, {}, submit);
      await page.click(submit);
      await page.waitForFunction(() => location.hash.startsWith("#/tasks/"));
      assertEquals(await waitForText(page, "#answer", /./), "any kind");
    },
  );

  await t.step(
    "a service that cannot answer (503) gets the page, saying what failed, not a page stuck loading",
    async () => {
      await using failing = await openPage(browser);
      await failing.setRequestInterception(true);
      failing.on("request", (request) => {
        if (!new URL(request.url()).pathname.startsWith("/tasks")) return void request.continue();
        void request.respond({
          status: 503,
          contentType: "application/problem+json",
          body: JSON.stringify({ status: 503, detail: "The store does not answer" }),
        });
      });
      await failing.goto(`${server.url}/console`);
      await waitForText(failing, "[role=alert]", /503 The store does not answer/);
    },
  );

  await t.step("the rate-limited route's panel shows the caller's budget from the RateLimit headers", async () => {
    await page.goto(`${server.url}/console#/rate-limit`);
    await page.waitForSelector("#rl-caller");
    await fill(page, "#rl-caller", `browser-${crypto.randomUUID()}`);
    for (let left = 9; left >= 0; left--) {
      await page.click("#rl-send");
      await waitForText(page, "#rl-budget", new RegExp(`Answered 200\\. ${left} of 10 requests left in a 30 s window`));
    }
    await page.click("#rl-send");
    assertMatch(await waitForText(page, "#rl-budget", /Refused \(429\)/), /0 of 10 requests left.*Retry after \d+ s\./);
    await shootAndCheck(page, "rate-limit");
  });

  assertEquals(pageErrors, []);
}

/** With `SERVICE_TOKENS_FILE`: sign-in, tickets, tenants. */
async function signedInScenario(t: Deno.TestContext, browser: Browser): Promise<void> {
  const tokens = testTokens();
  const file = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(file, tokens.file);
  await using server = await startServer(DENO_SERVER, { LOG_LEVEL: "warn", SERVICE_TOKENS_FILE: file });
  await using proxy = startTcpProxy(Number(new URL(server.url).port));
  const base = `http://127.0.0.1:${proxy.port}`;
  // Closed before the server stops, so that no stream of the page holds the server's shutdown.
  await using page = await openPage(browser);
  await page.setViewport({ width: 1280, height: 900 });
  const urls: string[] = [];
  page.on("request", (request) => urls.push(request.url()));
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  const consoleErrors = collectConsoleErrors(page);
  const api = async (path: string, bearer: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return await res.json();
  };
  // Another tenant's task, which the console must never show.
  await api("/tasks", tokens.stranger, { kind: "demo", input: { steps: 1 } });

  await t.step("the page asks for a token; an unknown one is refused, saying so", async () => {
    await page.goto(`${base}/console`);
    await waitForText(page, "h1", /Sign in/);
    assertEquals(consoleErrors.splice(0), [], "the page knew it needs a token without a 401");
    await shootAndCheck(page, "sign-in");
    await page.type("#token-input", "not-a-token");
    await page.click("form button[type=submit]");
    await waitForText(page, "#sign-in-error", /does not know this token/);
    consoleErrors.splice(0); // the browser's own line for the 401 of the unknown token
  });

  await t.step(
    "signed in: the caller's tenant only; a task started from the page streams through a ticket",
    async () => {
      await fill(page, "#token-input", tokens.admin);
      await page.click("form button[type=submit]");
      await waitForText(page, "main", /No tasks\./);
      await waitForText(page, "#list-mode", /Polling every 3 s/);
      assertEquals(consoleErrors.splice(0), []);
      await page.click("details.card summary");
      const words = Array.from({ length: 30 }, (_, i) => `t${i}`).join(" ");
      await fill(page, "details.card input", words);
      await page.click("details.card button[type=submit]");
      await page.waitForFunction(() => location.hash.startsWith("#/tasks/"));
      await waitForText(page, "#log", /step 1 of 3/);
      assertEquals(await waitForText(page, "#tokens", new RegExp(`${words}$`)), words);
      await waitForText(page, "#task-status", /^done$/);
      assertEquals((await api("/tasks", tokens.admin)).total, 1);
    },
  );

  await t.step("a dropped ticketed stream reopens with a new ticket: reconnected, no event twice", async () => {
    const created = await api("/tasks", tokens.admin, {
      kind: "demo",
      input: { steps: 20, delay_ms: 150, tokens: ["x ", "y"] },
    });
    await page.goto(`${base}/console#/tasks/${encodeURIComponent(created.task_id)}`);
    await waitForText(page, "#log", /step 3 of 20/);
    proxy.dropAll();
    await waitForText(page, "#connection", /reconnected/);
    await waitForText(page, "#task-status", /^done$/);
    const log = await page.$$eval("#log li", (items) => items.map((li) => li.textContent ?? ""));
    const ids = log.map((line) => line.match(/^#(\d+)/)?.[1]).filter((id) => id !== undefined).map(Number);
    assertEquals(ids, Array.from({ length: ids.length }, (_, i) => i + 1), `every event once:\n${log.join("\n")}`);
    assertEquals(await textOf(page, "#tokens"), "x y");
  });

  await t.step("with no PIPELINE_SOURCE_DIR, running the source folder is disabled, saying why", async () => {
    await page.goto(`${base}/console#/pipelines`);
    await waitForText(page, "#pipeline-status", /Documents0/);
    assert(await page.$eval("#run-full", (b) => b.disabled), "Run the source folder is enabled");
    const reason = await page.$eval(
      "#run-full",
      (b) => document.getElementById(b.getAttribute("aria-describedby"))?.textContent,
    );
    assertMatch(reason ?? "", /No source folder: start the service with PIPELINE_SOURCE_DIR/);
  });

  await t.step("sign out: the form again; the token was never in a URL", async () => {
    await page.click("#sign-out");
    await waitForText(page, "h1", /Sign in/);
    assertEquals(await page.evaluate(() => sessionStorage.length), 0);
    assert(urls.some((url) => url.includes("ticket=")), "no stream went through a ticket");
    assertEquals(urls.filter((url) => url.includes(tokens.admin)), []);
  });
  assertEquals(pageErrors, []);
  await Deno.remove(file);
}

/**
 * On Redis, the server restarts (killed, then started again on the same port) under an open
 * task page: the page's stream reconnects by itself, the new process takes the task over, and
 * the log shows every event id once.
 */
async function restartScenario(t: Deno.TestContext, browser: Browser): Promise<void> {
  await using redis = await startRedis();
  const env = { LOG_LEVEL: "warn", STORE_URL: redis.url, TASK_LEASE_SECONDS: "2" };
  const first = await startServer(DENO_SERVER, env);
  const port = new URL(first.url).port;
  let second: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    await using page = await openPage(browser);
    await page.setViewport({ width: 1280, height: 900 });
    const res = await fetch(`${first.url}/tasks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kind: "demo", input: { steps: 25, delay_ms: 150, tokens: ["after ", "restart"] } }),
    });
    const { task_id } = await res.json();
    await page.goto(`${first.url}/console#/tasks/${encodeURIComponent(task_id)}`);
    await t.step("the stream drops with the server and resumes from the new one", async () => {
      await waitForText(page, "#log", /step 3 of 25/);
      await first.kill();
      await waitForText(page, "#connection", /dropped/);
      second = await startServer(DENO_SERVER, { ...env, PORT: port });
      await waitForText(page, "#connection", /reconnected/);
      await waitForText(page, "#log", /restarted \(attempt 2\)/);
      await waitForText(page, "#task-status", /^done$/, 30_000);
      const log = await page.$$eval("#log li", (items) => items.map((li) => li.textContent ?? ""));
      assert(log.some((line) => /reconnected.*resumed after event \d+/.test(line)), log.join("\n"));
      const ids = log.map((line) => line.match(/^#(\d+)/)?.[1]).filter((id) => id !== undefined).map(Number);
      assertEquals(ids, Array.from({ length: ids.length }, (_, i) => i + 1), `every event once:\n${log.join("\n")}`);
      assertEquals(await textOf(page, "#tokens"), "after restart");
    });
  } finally {
    await first.kill();
    await second?.stop();
  }
}

// One browser for the file: starting chromium is most of a browser test's time.
Deno.test({
  name: "the console in chromium",
  ignore: missingTools("chromium"),
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    await using browser = await launchBrowser();
    await t.step(
      "running open: start a task and watch its tokens, a session's live list, a dropped stream, input, cancel a tree, delete",
      (t) => openScenario(t, browser),
    );
    await t.step(
      "signed in: a token per tab, streams through tickets, only the caller's tenant",
      (t) => signedInScenario(t, browser),
    );
    await t.step({
      name: "on Redis: the server restarts under a task page, which resumes without a duplicate",
      ignore: missingTools("redis-server"),
      fn: (t) => restartScenario(t, browser),
    });
  },
});
