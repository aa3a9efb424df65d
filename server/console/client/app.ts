/**
 * The console's shell: a header, and the view the location hash names (`#/` the task list, `#/?session=<id>`
 * one session's, `#/tasks/<id>` a task). On a change of view the view's heading takes the focus, so a screen
 * reader announces it and the keyboard starts there.
 *
 * @module
 */
import { useEffect, useState } from "preact/hooks";
import { html } from "./html.ts";
import { TaskList } from "./list.ts";
import { TaskView } from "./task.ts";

const route = () => decodeURIComponent(location.hash.replace(/^#/, "")) || "/";

/** The app. */
export function App(): preact.VNode {
  const [path, setPath] = useState(route());
  useEffect(() => {
    const onChange = () => setPath(route());
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  const task = path.match(/^\/tasks\/(.+)$/);
  return html`
    <a class="skip" href="#main" onClick=${(e: Event) => {
      e.preventDefault();
      document.getElementById("main")?.focus();
    }}>Skip to content</a>
    <header>
      <nav aria-label="Console"><a href="#/" class="brand">storectl console</a></nav>
    </header>
    <main id="main" tabindex="-1">
      ${task
        ? html`<${TaskView} key=${task[1]} id=${task[1]} />`
        : html`<${TaskList} key=${path} session=${
          new URLSearchParams(path.split("?")[1] ?? "").get("session") ?? ""
        } />`}
    </main>
  `;
}
