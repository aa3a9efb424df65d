/**
 * The pipelines panel (`#/pipelines`): the index's status, a search box with the matches
 * highlighted and each hit's source, adding a document, running the source folder, and asking a
 * question whose answer streams in with its sources.
 *
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { html } from "./html.ts";
import { api, newKey, type Task } from "./api.ts";
import { follow } from "./live.ts";
import { ago } from "../time.ts";
import { counted } from "../words.ts";
import { useNow } from "./clock.ts";

interface Status {
  readonly chunks: number;
  readonly documents: number;
  readonly staged_chunks: number;
  readonly state: string;
  readonly last_task_id?: string;
  readonly updated_at?: string;
  /** Whether the service has a source folder to run. */
  readonly source_folder: boolean;
}
interface Hit {
  readonly chunk_id: string;
  readonly title: string;
  readonly source: string;
  readonly text: string;
  readonly score: number;
}
interface Source {
  readonly title: string;
  readonly source: string;
  readonly score: number;
}

const FINISHED = ["done", "failed", "cancelled"];

/** `text` with every word of `query` (3+ letters, any case) marked. */
export function highlight(text: string, query: string): (string | preact.VNode)[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [];
  if (words.length === 0) return [text];
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const pattern = new RegExp(`(${escaped.join("|")})`, "giu");
  return text.split(pattern).map((part, i) => i % 2 === 1 ? html`<mark>${part}</mark>` : part);
}

/** Waits until the task `id` has finished (polling once a second), then resolves with it. */
async function finished(id: string): Promise<Task> {
  for (;;) {
    const task = await api<Task>("GET", `/tasks/${encodeURIComponent(id)}`);
    if (FINISHED.includes(task.status)) return task;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** The panel. */
export function PipelinesPanel(): preact.VNode {
  const [status, setStatus] = useState<Status | null>(null);
  const [notice, setNotice] = useState("");
  const [error, setError] = useState("");
  const title = useRef<HTMLHeadingElement>(null);
  const now = useNow();
  const refresh = () => api<Status>("GET", "/pipelines/status").then(setStatus, (e) => setError(e.message));
  useEffect(() => {
    title.current?.focus();
    void refresh();
  }, []);
  /** Submits a pipeline task, says so, and refreshes the status when it has finished. */
  const submit = async (path: string, body: unknown, key: string, what: string) => {
    setError("");
    try {
      const { task_id } = await api<{ task_id: string }>("POST", path, body, { "idempotency-key": key });
      setNotice(`${what}: task ${task_id} started.`);
      void refresh();
      const task = await finished(task_id);
      setNotice(`${what}: task ${task_id} ${task.status}${task.error ? ` (${task.error})` : ""}.`);
      await refresh();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const noSource = status?.source_folder === false;
  return html`
    <h1 tabindex="-1" ref=${title}>Pipelines</h1>
    ${error && html`<p role="alert" class="error">${error}</p>`}
    <p role="status" class="notice" hidden=${!notice}>${notice}</p>
    <section aria-labelledby="status-title">
      <h2 id="status-title">Status</h2>
      ${status && html`
        <dl class="facts" id="pipeline-status">
          <dt>Documents</dt><dd>${status.documents}</dd>
          <dt>Chunks</dt><dd>${status.chunks}</dd>
          <dt>Staged chunks</dt><dd>${status.staged_chunks}</dd>
          <dt>State</dt><dd>${status.state}</dd>
          ${status.last_task_id && html`
            <dt>Last task</dt>
            <dd><a href=${`#/tasks/${encodeURIComponent(status.last_task_id)}`}>${status.last_task_id}</a></dd>
          `}
          ${status.updated_at && html`
            <dt>Updated</dt>
            <dd><time datetime=${status.updated_at}>${ago(status.updated_at, now)}</time></dd>
          `}
        </dl>
      `}
      <button type="button" onClick=${refresh}>Refresh</button>
      <button type="button" id="run-full" disabled=${noSource} aria-describedby=${noSource ? "no-source" : undefined}
        onClick=${() =>
          submit("/pipelines/full", {}, newKey(), "Run of the source folder")}>Run the source folder</button>
      ${noSource && html`
        <p id="no-source" class="muted">No source folder: start the service with PIPELINE_SOURCE_DIR set to one.</p>
      `}
    </section>
    <${Search} />
    <${Ask} />
    <${AddDocument} onSubmit=${(body: unknown, key: string) => submit("/pipelines/documents", body, key, "Document")} />
  `;
}

/** The search box and its hits. */
function Search(): preact.VNode {
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<readonly Hit[] | null>(null);
  const [searched, setSearched] = useState("");
  const [error, setError] = useState("");
  const search = async (e: Event) => {
    e.preventDefault();
    try {
      const answer = await api<{ hits: Hit[] }>(
        "GET",
        `/pipelines/search?${new URLSearchParams({ q: query, k: "5" })}`,
      );
      setHits(answer.hits);
      setSearched(query);
      setError("");
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return html`
    <section aria-labelledby="search-title">
      <h2 id="search-title">Search</h2>
      <form role="search" class="inline" onSubmit=${search}>
        <label>Words to find<input type="search" id="search-input" required value=${query}
          onInput=${(e: Event) => setQuery((e.target as HTMLInputElement).value)} /></label>
        <button type="submit">Search</button>
      </form>
      ${error && html`<p role="alert" class="error">${error}</p>`}
      ${hits && html`
        <p aria-live="polite" id="hits-count">${hits.length === 0
          ? `Nothing matches “${searched}”.`
          : counted(hits.length, "best match", "best matches")}</p>
        <ol class="hits" id="hits">
          ${hits.map((hit) =>
            html`
              <li key=${hit.chunk_id}>
                <strong>${highlight(hit.title, searched)}</strong> <span class="muted">${hit.source} · score ${hit.score
                  .toFixed(2)}</span>
                <p>${highlight(hit.text, searched)}</p>
              </li>
            `
          )}
        </ol>
      `}
    </section>
  `;
}

/** Asks a question (an `answer` task) and shows its answer as the tokens arrive, then its sources. */
function Ask(): preact.VNode {
  const [question, setQuestion] = useState("");
  const [answer, setAnswer] = useState("");
  const [sources, setSources] = useState<readonly Source[] | null>(null);
  const [taskId, setTaskId] = useState("");
  const [error, setError] = useState("");
  const stop = useRef(() => {});
  useEffect(() => () => stop.current(), []);
  const ask = async (e: Event) => {
    e.preventDefault();
    stop.current();
    setAnswer("");
    setSources(null);
    setError("");
    try {
      const task = await api<Task>("POST", "/tasks", { kind: "answer", input: { question } }, {
        "idempotency-key": newKey(),
      });
      setTaskId(task.task_id);
      stop.current = follow(
        `/tasks/${encodeURIComponent(task.task_id)}/stream`,
        (event) => {
          if (event.kind === "token") setAnswer((a) => a + String(event.data.message ?? ""));
          if (event.kind === "done") {
            const result = event.data.result as { answer?: string; sources?: Source[] };
            if (typeof result.answer === "string") setAnswer(result.answer);
            setSources(result.sources ?? []);
          }
          if (event.kind === "failed") setError(`The answer failed: ${event.data.error}`);
        },
        () => {},
        { ends: true },
      );
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return html`
    <section aria-labelledby="ask-title">
      <h2 id="ask-title">Ask</h2>
      <form class="inline" onSubmit=${ask}>
        <label>Question<input id="ask-input" required maxlength="2000" value=${question}
          onInput=${(e: Event) => setQuestion((e.target as HTMLInputElement).value)} /></label>
        <button type="submit">Ask</button>
      </form>
      ${error && html`<p role="alert" class="error">${error}</p>`}
      ${taskId && html`
        <p id="ask-answer" class="tokens" role="log" aria-live="polite">${answer}</p>
        ${sources && html`
          <h3>Sources</h3>
          <ol id="ask-sources">${sources.map((s) =>
            html`<li>${s.title} <span class="muted">${s.source}</span></li>`
          )}</ol>
        `}
        <p><a href=${`#/tasks/${encodeURIComponent(taskId)}`}>The answer's task</a></p>
      `}
    </section>
  `;
}

/** The form that adds (or replaces) one document. */
function AddDocument({ onSubmit }: { onSubmit: (body: unknown, key: string) => Promise<void> }): preact.VNode {
  const [doc, setDoc] = useState({ title: "", source: "", content: "" });
  const [key, setKey] = useState(newKey());
  const field = (name: "title" | "source", label: string) =>
    html`<label>${label}<input id=${`doc-${name}`} required value=${doc[name]} onInput=${(e: Event) => {
      setDoc({ ...doc, [name]: (e.target as HTMLInputElement).value });
      setKey(newKey());
    }} /></label>`;
  return html`
    <section aria-labelledby="add-title">
      <h2 id="add-title">Add a document</h2>
      <form class="card" onSubmit=${(e: Event) => {
        e.preventDefault();
        void onSubmit(doc, key);
      }}>
        ${field("title", "Title")}
        ${field("source", "Source (its id: the same source replaces the document)")}
        <label class="wide">Content<textarea id="doc-content" required rows="5" value=${doc.content}
          onInput=${(e: Event) => {
            setDoc({ ...doc, content: (e.target as HTMLTextAreaElement).value });
            setKey(newKey());
          }}></textarea></label>
        <button type="submit" id="doc-add">Add the document</button>
      </form>
    </section>
  `;
}
