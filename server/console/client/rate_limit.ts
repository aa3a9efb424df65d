/**
 * The rate-limited route's panel (`#/rate-limit`): sends `GET /api/RateLimited/sliding` as a
 * caller (its Basic identity) and shows the budget the `RateLimit` and `RateLimit-Policy`
 * headers report, and `Retry-After` when refused.
 *
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { html } from "./html.ts";

/** What one answer said. */
interface Budget {
  readonly status: number;
  readonly remaining?: number;
  readonly resetS?: number;
  readonly quota?: number;
  readonly windowS?: number;
  readonly retryAfter?: string;
}

const param = (header: string | null, name: string) => {
  const match = header?.match(new RegExp(`;${name}=(\\d+)`));
  return match ? Number(match[1]) : undefined;
};

/** The `Authorization: Basic` value for `identity` (UTF-8). */
const basic = (identity: string) =>
  `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(`${identity}:console`)))}`;

/** The budget in words (one string: htm drops the spaces around line breaks in a template). */
const describe = (b: Budget) =>
  `${b.remaining} of ${b.quota ?? "?"} requests left in a ${b.windowS ?? "?"} s window; the window frees up in ` +
  `${b.resetS ?? "?"} s.${b.retryAfter !== undefined ? ` Retry after ${b.retryAfter} s.` : ""}`;

/** The panel. */
export function RateLimitPanel(): preact.VNode {
  const [caller, setCaller] = useState("console-user");
  const [budget, setBudget] = useState<Budget | null>(null);
  const [error, setError] = useState("");
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => title.current?.focus(), []);
  const send = async (e: Event) => {
    e.preventDefault();
    try {
      const res = await fetch("/api/RateLimited/sliding", { headers: { authorization: basic(caller) } });
      await res.body?.cancel();
      const limit = res.headers.get("ratelimit");
      const policy = res.headers.get("ratelimit-policy");
      setBudget({
        status: res.status,
        remaining: param(limit, "r"),
        resetS: param(limit, "t"),
        quota: param(policy, "q"),
        windowS: param(policy, "w"),
        retryAfter: res.headers.get("retry-after") ?? undefined,
      });
      setError(res.status === 401 ? "The route refused this identity (empty, or over 256 bytes)." : "");
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return html`
    <h1 tabindex="-1" ref=${title}>Rate-limited route</h1>
    <p>Each request to <code>/api/RateLimited/sliding</code> spends one of its caller's budget (the caller is the
      identity of its Basic credentials).</p>
    <form class="card" onSubmit=${send}>
      <label>Caller identity
        <input id="rl-caller" required maxlength="256" value=${caller}
          onInput=${(e: Event) => setCaller((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit" id="rl-send">Send a request</button>
    </form>
    ${error && html`<p role="alert" class="error">${error}</p>`}
    <div id="rl-budget" role="status" aria-live="polite">
      ${budget && budget.remaining !== undefined && html`
        <p><strong>${budget.status === 429 ? "Refused (429)." : `Answered ${budget.status}.`}</strong>${" "}${describe(
          budget,
        )}</p>
        ${budget.quota !== undefined &&
          html`<progress max=${budget.quota} value=${budget.remaining} aria-label="Requests left"></progress>`}
      `}
    </div>
  `;
}
