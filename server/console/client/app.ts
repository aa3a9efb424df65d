/**
 * The console's shell: a header, and the view the location hash names (`#/` the task list,
 * `#/?session=<id>` one session's, `#/tasks/<id>` a task, `#/pipelines` the pipelines, `#/rate-limit` the rate-limited
 * route), or the sign-in form when the service
 * asks for a token. On a change of view the view's heading takes the focus, so a screen reader
 * announces it and the keyboard starts there.
 *
 * @module
 */
import { useEffect, useState } from "preact/hooks";
import { html } from "./html.ts";
import { TaskList } from "./list.ts";
import { TaskView } from "./task.ts";
import { SignIn } from "./sign_in.ts";
import { RateLimitPanel } from "./rate_limit.ts";
import { PipelinesPanel } from "./pipelines.ts";
import { api, ApiError, onUnauthorized, serviceFacts, setToken, token } from "./api.ts";

const route = () => decodeURIComponent(location.hash.replace(/^#/, "")) || "/";

/** Whether the page may call the API: "open" (no token needed), "in" (signed in), "out" (it must sign in). */
type Access = "checking" | "open" | "in" | "out";

/** The app. */
export function App(): preact.VNode {
  const [path, setPath] = useState(route());
  const [access, setAccess] = useState<Access>("checking");
  useEffect(() => {
    const onChange = () => setPath(route());
    addEventListener("hashchange", onChange);
    onUnauthorized(() => setAccess("out"));
    if (serviceFacts().tokens && !token()) {
      // The form at once: asking first would cost a 401, a red line in the browser's console.
      setAccess("out");
    } else {
      // Any 401 (here or later) shows the sign-in form.
      // Another failure (a 503 while the store is away) shows the views, which say what failed.
      api("GET", "/tasks?limit=1").then(
        () => setAccess(token() ? "in" : "open"),
        (e) => {
          if (!(e instanceof ApiError && e.status === 401)) setAccess(token() ? "in" : "open");
        },
      );
    }
    return () => removeEventListener("hashchange", onChange);
  }, []);
  const signOut = () => {
    setToken("");
    setAccess("out");
  };
  const task = path.match(/^\/tasks\/(.+)$/);
  const view = () =>
    path === "/rate-limit"
      ? html`<${RateLimitPanel} />`
      : path === "/pipelines"
      ? html`<${PipelinesPanel} />`
      : task
      ? html`<${TaskView} key=${task[1]} id=${task[1]} />`
      : html`<${TaskList} key=${path} session=${new URLSearchParams(path.split("?")[1] ?? "").get("session") ?? ""} />`;
  return html`
    <a class="skip" href="#main" onClick=${(e: Event) => {
      e.preventDefault();
      document.getElementById("main")?.focus();
    }}>Skip to content</a>
    <header>
      <nav aria-label="Console">
        <span class="brand">storectl console</span>
        <a href="#/">Tasks</a> <a href="#/pipelines">Pipelines</a> <a href="#/rate-limit">Rate limit</a>
      </nav>
      ${access === "in" && html`<button type="button" id="sign-out" onClick=${signOut}>Sign out</button>`}
    </header>
    <main id="main" tabindex="-1">
      ${access === "checking"
        ? html`<p>Loading…</p>`
        : access === "out"
        ? html`<${SignIn} onSignedIn=${() => setAccess("in")} />`
        : view()}
    </main>
  `;
}
