/**
 * A task's page: its tree, its event log replayed then live (resuming with `Last-Event-ID` after
 * a drop, shown as "reconnected"), its tokens as text, the result, cancel (with the cascade
 * choice and the count it moved), delete (after a confirmation) and an input box while it waits.
 *
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { html } from "./html.ts";
import { api, type Task, type TreeNode } from "./api.ts";
import { type Connection, follow, type StreamEvent } from "./live.ts";
import { ago } from "../time.ts";
import { counted } from "../words.ts";
import { useNow } from "./clock.ts";

/** A line of the log: an event, or a note of the connection ("reconnected after event 12"). */
type Line = { id: number; kind: string; text: string; note?: boolean };

const CONNECTION_TEXT: Record<Connection, string> = {
  connecting: "connecting…",
  live: "live",
  dropped: "connection dropped; reconnecting…",
  reconnected: "reconnected",
  ended: "ended",
};

/** One line of text for an event's data. */
function describe(event: StreamEvent): string {
  const d = event.data;
  const text = d.message ?? d.prompt ?? d.error ?? (d.result !== undefined ? JSON.stringify(d.result) : "");
  return `${d.spawn_key ? `[${d.spawn_key}] ` : ""}${typeof text === "string" ? text : JSON.stringify(text)}`;
}

/** The task view. */
export function TaskView({ id }: { id: string }): preact.VNode {
  const [task, setTask] = useState<Task | null>(null);
  const [tree, setTree] = useState<TreeNode | null>(null);
  const [error, setError] = useState("");
  const [lines, setLines] = useState<Line[]>([]);
  const [tokens, setTokens] = useState("");
  const [connection, setConnection] = useState<Connection>("connecting");
  const [notice, setNotice] = useState("");
  const now = useNow();
  const title = useRef<HTMLHeadingElement>(null);
  const path = `/tasks/${encodeURIComponent(id)}`;

  const refresh = async () => {
    try {
      const [t, tr] = await Promise.all([api<Task>("GET", path), api<TreeNode>("GET", `${path}/tree`)]);
      setTask(t);
      setTree(tr);
      setError("");
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const latest = useRef(refresh);
  latest.current = refresh;

  useEffect(() => {
    title.current?.focus();
    void refresh();
    let timer: number | undefined;
    const soon = () =>
      timer ??= setTimeout(() => {
        timer = undefined;
        latest.current();
      }, 200);
    const stop = follow(`${path}/stream`, (event) => {
      if (event.kind === "token" && !event.data.subtask_id) {
        setTokens((t) => t + String(event.data.message ?? ""));
      }
      setLines((l) => [...l, { id: event.id, kind: event.kind, text: describe(event) }]);
      if (event.kind !== "token") soon();
    }, (state, lastId) => {
      setConnection(state);
      if (state === "reconnected") {
        setLines((l) => [...l, { id: lastId, kind: "reconnected", text: `resumed after event ${lastId}`, note: true }]);
      }
      if (state === "ended") soon();
    }, { ends: true });
    return () => {
      stop();
      clearTimeout(timer);
    };
  }, [id]);

  const answer = typeof task?.result?.answer === "string" ? task.result.answer as string : undefined;
  return html`
    <p><a href="#/">← All tasks</a></p>
    <h1 tabindex="-1" ref=${title}>${task ? `${task.kind} task` : "Task"} <code>${id}</code></h1>
    ${error && html`<p role="alert" class="error">${error}</p>`}
    ${notice && html`<p role="status" class="notice">${notice}</p>`}
    ${task && html`
      <dl class="facts">
        <dt>Status</dt><dd><span class=${`status s-${task.status}`} id="task-status">${task.status.replace(
          "_",
          " ",
        )}</span></dd>
        <dt>Session</dt><dd><a href=${`#/?session=${encodeURIComponent(task.session_id)}`}>${task.session_id}</a></dd>
        <dt>Created</dt><dd><time datetime=${task.created_at} title=${task.created_at}>${ago(
          task.created_at,
          now,
        )}</time></dd>
        <dt>Updated</dt><dd><time datetime=${task.updated_at} title=${task.updated_at}>${ago(
          task.updated_at,
          now,
        )}</time></dd>
        ${task.parent_id && html`
          <dt>Parent</dt>
          <dd><a href=${`#/tasks/${encodeURIComponent(task.parent_id)}`}>${task.parent_id}</a></dd>
        `}
      </dl>
      ${task.status === "input_required" &&
        html`<${InputBox} path=${path} prompt=${task.prompt ?? ""} onDone=${refresh} />`}
      <section aria-labelledby="tokens-title">
        <h2 id="tokens-title">Output</h2>
        <p id="tokens" class="tokens" role="log" aria-live="polite">${tokens ||
          html`<span class="muted">No tokens yet.</span>`}</p>
        ${answer !== undefined && html`<p><strong>Answer:</strong> <span id="answer">${answer}</span></p>`}
        ${task.result && html`
          <details>
            <summary>Result (JSON)</summary>
            <pre>${JSON.stringify(task.result, null, 2)}</pre>
          </details>
        `}
        ${task.error && html`<p class="error">Failed: ${task.error}</p>`}
      </section>
      <${Actions} task=${task} path=${path} onNotice=${setNotice} onChange=${refresh} />
      ${tree && html`
        <section aria-labelledby="tree-title">
          <h2 id="tree-title">Tree</h2>
          <ul class="tree" aria-label="Task tree">
            <${Node} node=${tree} level=${1} current=${id} path="" />
          </ul>
        </section>
      `}
    `}
    <section aria-labelledby="log-title">
      <h2 id="log-title">Events <span class="conn" id="connection">(${CONNECTION_TEXT[connection]})</span></h2>
      <div role="log" aria-label="Events" aria-live="off">
        <ol class="log" id="log">
        ${lines.map((l) =>
          html`
            <li key=${`${l.kind}-${l.id}`}
              class=${l.note ? "note" : ""}><span class="muted">${l.note ? "—" : `#${l.id}`}</span> <strong>${l
                .kind}</strong> ${l.text}</li>
          `
        )}
        </ol>
      </div>
    </section>
  `;
}

/** Cancel (with the cascade choice) and delete (after a confirmation). */
function Actions({ task, path, onNotice, onChange }: {
  task: Task;
  path: string;
  onNotice: (text: string) => void;
  onChange: () => void;
}): preact.VNode {
  const [cascade, setCascade] = useState(true);
  const [busy, setBusy] = useState(false);
  const finished = ["done", "failed", "cancelled"].includes(task.status);
  const act = (work: () => Promise<void>) => async () => {
    setBusy(true);
    try {
      await work();
    } catch (e) {
      onNotice((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const cancel = act(async () => {
    const { cancelled_count } = await api<{ cancelled_count: number }>("POST", `${path}/cancel`, { cascade });
    onNotice(`Cancelled ${counted(cancelled_count, "task")}.`);
    onChange();
  });
  const remove = act(async () => {
    if (!confirm(`Delete task ${task.task_id} and all its sub-tasks? This cannot be undone.`)) return;
    await api("DELETE", path);
    location.hash = "#/";
  });
  return html`
    <section aria-labelledby="actions-title" class="actions">
      <h2 id="actions-title">Actions</h2>
      <label><input type="checkbox" checked=${cascade} onChange=${(e: Event) =>
        setCascade((e.target as HTMLInputElement).checked)} /> Also cancel its sub-tasks</label>
      <button type="button" id="cancel" disabled=${busy || finished} onClick=${cancel}>Cancel</button>
      <button type="button" id="delete" class="danger" disabled=${busy} onClick=${remove}>Delete…</button>
    </section>
  `;
}

/** The answer box of an `input_required` task. */
function InputBox({ path, prompt, onDone }: { path: string; prompt: string; onDone: () => void }): preact.VNode {
  const [value, setValue] = useState("");
  const [error, setError] = useState("");
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      await api("POST", `${path}/input`, { input: value });
      onDone();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return html`
    <form class="card input" onSubmit=${submit}>
      <label for="answer-input">The task asks: <strong>${prompt}</strong></label>
      <input id="answer-input" ref=${field} value=${value} required onInput=${(e: Event) =>
        setValue((e.target as HTMLInputElement).value)} />
      <button type="submit">Send answer</button>
      ${error && html`<p role="alert" class="error">${error}</p>`}
    </form>
  `;
}

/**
 * A node of the tree: the task's kind, key and status, its children behind a disclosure button
 * (`aria-expanded`). Nested lists rather than an ARIA tree: Tab reaches every button and link,
 * which an ARIA tree would have to replace with arrow keys.
 */
function Node(
  { node, level, current, path }: { node: TreeNode; level: number; current: string; path: string },
): preact.VNode {
  const [open, setOpen] = useState(level < 3);
  const t = node.task;
  const has = node.children.length > 0;
  // Keys repeat at each level (every parent has a child-0): names carry the way down, "child-1 › child-0".
  const name = t.spawn_key ?? t.kind;
  const here = path ? `${path} › ${name}` : name;
  return html`
    <li>
      ${has
        ? html`
          <button type="button" class="toggle" aria-expanded=${open
            ? "true"
            : "false"} aria-label=${`Sub-tasks of ${here}`}
            onClick=${() => setOpen(!open)}>${open ? "▾" : "▸"}</button>
        `
        : html`<span class="toggle" aria-hidden="true">·</span>`}
      ${t.task_id === current
        ? html`<strong>${name}</strong>`
        : html`<a href=${`#/tasks/${encodeURIComponent(t.task_id)}`} aria-label=${
          here === name ? undefined : here
        }>${name}</a>`}
      ${" "}<span class=${`status s-${t.status}`}>${t.status.replace("_", " ")}</span>
      ${has && open &&
        html`<ul>${
          node.children.map((c) =>
            html`<${Node} key=${c.task.task_id} node=${c} level=${level + 1} current=${current} path=${
              level === 1 ? "" : here
            } />`
          )
        }</ul>`}
    </li>
  `;
}
