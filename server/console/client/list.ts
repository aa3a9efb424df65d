/**
 * The task list, newest first: top-level tasks unless asked for all, status and session filters,
 * paging with the API's cursor, live updates from
 * the session or global stream when that scope is on (polling otherwise; the page says which),
 * and a form that starts a demo task.
 *
 * @module
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { html } from "./html.ts";
import {
  api,
  ApiError,
  kindSchemas,
  newKey,
  serviceFacts,
  STATUSES,
  type Summary,
  type Task,
  type TaskPage,
} from "./api.ts";
import { type Schema, validate } from "../schema.ts";
import { follow } from "./live.ts";
import { ago, exact } from "../time.ts";
import { counted } from "../words.ts";
import { useNow } from "./clock.ts";

const PAGE = 20;
const POLL_MS = 3000;

/** How the list keeps itself current. */
type Mode = { kind: "stream"; scope: "session" | "global" } | { kind: "poll" };

/** The list view; `session` filters it from the start. */
export function TaskList(props: { session?: string }): preact.VNode {
  const [status, setStatus] = useState("");
  const [session, setSession] = useState(props.session ?? "");
  const [rootsOnly, setRootsOnly] = useState(true);
  const [cursors, setCursors] = useState<string[]>([]);
  const [page, setPage] = useState<TaskPage | null>(null);
  const [error, setError] = useState("");
  const [loadedAt, setLoadedAt] = useState<string>(new Date().toISOString());
  const now = useNow(1000); // "3 s ago" moves on each second
  const cursor = cursors[cursors.length - 1];

  const load = useCallback(async () => {
    const q = new URLSearchParams({ limit: String(PAGE) });
    if (status) q.set("status", status);
    if (session) q.set("session_id", session);
    if (rootsOnly) q.set("roots", "true");
    if (cursor) q.set("cursor", cursor);
    try {
      setPage(await api<TaskPage>("GET", `/tasks?${q}`));
      setLoadedAt(new Date().toISOString());
      setError("");
    } catch (e) {
      setError((e as Error).message);
    }
  }, [status, session, rootsOnly, cursor]);
  const latest = useRef(load);
  latest.current = load;
  useEffect(() => void load(), [load]);

  const mode = useLiveRefresh(session, () => latest.current());

  const first = cursors.length * PAGE;
  return html`
    <h1 tabindex="-1" id="view-title">Tasks</h1>
    <${StartDemo} session=${session} />
    <${StartTask} session=${session} />
    <form class="filters" role="search" aria-label="Filter tasks" onSubmit=${(e: Event) => e.preventDefault()}>
      <label>Status
        <select value=${status} onChange=${(e: Event) => {
          setCursors([]);
          setStatus((e.target as HTMLSelectElement).value);
        }}>
          <option value="">any</option>
          ${STATUSES.map((s) => html`<option value=${s}>${s.replace("_", " ")}</option>`)}
        </select>
      </label>
      <label>Session
        <input type="search" value=${session} placeholder="any session" onChange=${(e: Event) => {
          setCursors([]);
          setSession((e.target as HTMLInputElement).value.trim());
        }} />
      </label>
      <label><input type="checkbox" id="roots-only" checked=${rootsOnly} onChange=${(e: Event) => {
        setCursors([]);
        setRootsOnly((e.target as HTMLInputElement).checked);
      }} /> Top-level tasks only</label>
    </form>
    <p class="mode" id="list-mode">
      ${mode.kind === "stream"
        ? `Live: following the ${mode.scope} stream.`
        : `Polling every ${POLL_MS / 1000} s (the ${
          session ? "session and global streams are" : "global stream is"
        } off).`}
      Refreshed <time datetime=${loadedAt}>${ago(loadedAt, now)}</time>.
    </p>
    ${error && html`<p role="alert" class="error">${error}</p>`}
    ${page && html`
      <p aria-live="polite">${page.total === 0
        ? "No tasks."
        : `Tasks ${first + 1}–${first + page.tasks.length} of ${page.total}`}</p>
      <ul class="tasks" aria-label="Tasks">
        ${page.tasks.map((t: Summary) => html`<${TaskRow} key=${t.task_id} task=${t} now=${now} />`)}
      </ul>
      <nav class="pager" aria-label="Pages">
        <button type="button" disabled=${cursors.length === 0} onClick=${() => setCursors(cursors.slice(0, -1))}>
          Previous
        </button>
        <button type="button" disabled=${!page.next_cursor} onClick=${() =>
          setCursors([...cursors, page.next_cursor!])}>
          Next
        </button>
      </nav>
    `}
  `;
}

/**
 * Keeps the list current: the session's stream when a session is chosen and SESSION is on, else
 * the global one when GLOBAL is on, else polling. Any event reloads (at most every 300 ms).
 */
function useLiveRefresh(session: string, reload: () => void): Mode {
  const latest = useRef(reload);
  latest.current = reload;
  const { streams } = serviceFacts();
  const sessionPath = session ? `/sessions/${encodeURIComponent(session)}/stream` : "";
  const scope = sessionPath && streams.session ? "session" : streams.global ? "global" : undefined;
  useEffect(() => {
    if (!scope) {
      const timer = setInterval(() => latest.current(), POLL_MS);
      return () => clearInterval(timer);
    }
    let timer: number | undefined;
    const url = `${
      scope === "session" ? sessionPath : "/stream"
    }?replay=false&events=update,done,failed,cancelled,input_required`;
    const stop = follow(url, () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        latest.current();
      }, 300);
    }, () => {});
    return () => {
      stop();
      clearTimeout(timer);
    };
  }, [session]);
  return scope ? { kind: "stream", scope } : { kind: "poll" };
}

/** One task of the list: its kind and id (a link to it), status, sub-tasks or parent, session and times. */
function TaskRow({ task: t, now }: { task: Summary; now: number }): preact.VNode {
  return html`
    <li>
      <a href=${`#/tasks/${encodeURIComponent(t.task_id)}`}>${t.kind} <code>${t.task_id}</code></a>
      <span class=${`status s-${t.status}`}>${t.status.replace("_", " ")}</span>
      ${t.children > 0 && html`<span class="muted">${counted(t.children, "sub-task")}</span>`}
      ${t.parent_id && html`
        <span class="muted">sub-task of <a href=${`#/tasks/${encodeURIComponent(t.parent_id)}`}>${t
          .parent_id}</a></span>
      `}
      <span class="muted">session ${t.session_id} ·
        <time datetime=${t.created_at} title=${exact(t.created_at)}>created ${ago(t.created_at, now)}</time> ·
        <time datetime=${t.updated_at} title=${exact(t.updated_at)}>updated ${ago(t.updated_at, now)}</time>
      </span>
    </li>
  `;
}

/** A small form that starts a `demo` task (its tokens, children and question) and opens it. */
function StartDemo({ session }: { session: string }): preact.VNode {
  const [tokens, setTokens] = useState("Hello, world");
  const [children, setChildren] = useState("0");
  const [ask, setAsk] = useState("");
  const [key, setKey] = useState(newKey());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      const input: Record<string, unknown> = {
        tokens: tokens.split(/(?<=\s)/).filter((t) => t !== ""),
        children: Number(children),
        steps: 3,
        delay_ms: 200,
      };
      if (ask.trim()) input.ask = ask.trim();
      // The same key for the same form fill: a double click creates one task.
      const task = await api<Task>("POST", "/tasks", {
        kind: "demo",
        input,
        ...(session && { session_id: session }),
      }, { "idempotency-key": key });
      setKey(newKey());
      location.hash = `#/tasks/${encodeURIComponent(task.task_id)}`;
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const field = (label: string, value: string, set: (v: string) => void, attrs: Record<string, unknown> = {}) =>
    html`<label>${label}<input value=${value} ...${attrs} onInput=${(e: Event) => {
      set((e.target as HTMLInputElement).value);
      setKey(newKey());
    }} /></label>`;
  return html`
    <details class="card">
      <summary>Start a demo task</summary>
      <form onSubmit=${submit} aria-describedby="demo-help">
        <p id="demo-help" class="muted">Runs the built-in <code>demo</code> kind: it streams the text as tokens.</p>
        ${field("Text to stream", tokens, setTokens)}
        ${field("Children", children, setChildren, { type: "number", min: 0, max: 10 })}
        ${field("Question to ask (optional)", ask, setAsk)}
        <button type="submit" disabled=${busy}>Start the demo task</button>
        ${error && html`<p role="alert" class="error">${error}</p>`}
      </form>
    </details>
  `;
}

/** What a kind's input holds, from its schema: `steps (integer, 0–1000), question (string, required)`. */
function fields(schema: Schema): string {
  const required = (schema.required ?? []) as string[];
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
  if (properties.length === 0) return "no fields: send {} or nothing";
  return properties.map(([name, p]) => {
    const range = p.minimum !== undefined && p.maximum !== undefined ? `, ${p.minimum}–${p.maximum}` : "";
    return `${name} (${p.type ?? "any"}${range}${required.includes(name) ? ", required" : ""})`;
  }).join(", ");
}

/**
 * Starts a task of any kind with its input as JSON, checked as it is typed against the kind's
 * schema from `/openapi.json` (Start stays disabled while it fails); the service's 422 (rules a
 * schema cannot say, or a service whose schemas could not be read) is shown the same way.
 */
function StartTask({ session }: { session: string }): preact.VNode {
  const [kind, setKind] = useState("demo");
  const [input, setInput] = useState('{\n  "steps": 2,\n  "tokens": ["Hello", " world"]\n}');
  const [key, setKey] = useState(newKey());
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [schemas, setSchemas] = useState<Record<string, Schema>>({});
  useEffect(() => void kindSchemas().then(setSchemas), []);
  const kinds = Object.keys(schemas);
  let parsed: unknown;
  let invalid: string[] = [];
  try {
    parsed = input.trim() === "" ? undefined : JSON.parse(input);
  } catch (e) {
    invalid = [`Not JSON: ${(e as Error).message}`];
  }
  const schema = schemas[kind];
  if (invalid.length === 0 && kinds.length > 0) {
    invalid = schema
      ? validate(schema, parsed ?? {}).map((f) => `${f.field}: ${f.message}`)
      : [`kind: the service has no kind “${kind}”; it runs ${kinds.join(", ")}`];
  }
  const submit = async (e: Event) => {
    e.preventDefault();
    if (invalid.length > 0) return;
    setBusy(true);
    try {
      const task = await api<Task>("POST", "/tasks", {
        kind,
        ...(parsed !== undefined && { input: parsed }),
        ...(session && { session_id: session }),
      }, { "idempotency-key": key });
      setKey(newKey());
      location.hash = `#/tasks/${encodeURIComponent(task.task_id)}`;
    } catch (err) {
      setErrors(
        err instanceof ApiError && err.errors.length > 0
          ? err.errors.map((f) => `${f.field}: ${f.message}`)
          : [(err as Error).message],
      );
    } finally {
      setBusy(false);
    }
  };
  const shown = invalid.length > 0 ? invalid : errors;
  return html`
    <details class="card">
      <summary>Start a task of any kind</summary>
      <form onSubmit=${submit}>
        <label>Kind<input id="task-kind" list="task-kinds" required value=${kind} onInput=${(e: Event) => {
          setKind((e.target as HTMLInputElement).value);
          setKey(newKey());
          setErrors([]);
        }} /></label>
        <datalist id="task-kinds">${kinds.map((k) => html`<option value=${k} />`)}</datalist>
        <p id="task-input-fields" class="muted" hidden=${!schema}>${schema && `Input fields: ${fields(schema)}`}</p>
        <label class="wide">Input (JSON)<textarea id="task-input" rows="6" spellcheck="false"
          aria-invalid=${shown.length > 0 ? "true" : "false"} aria-describedby="task-input-fields task-input-errors"
          value=${input} onInput=${(e: Event) => {
            setInput((e.target as HTMLTextAreaElement).value);
            setKey(newKey());
            setErrors([]);
          }}></textarea></label>
        <ul id="task-input-errors" class="error" aria-live="polite">${shown.map((m) => html`<li>${m}</li>`)}</ul>
        <button type="submit" disabled=${busy || invalid.length > 0}>Start the task</button>
      </form>
    </details>
  `;
}
