/**
 * Sign-in with one of the service's tokens (`SERVICE_TOKENS_FILE`). The token is checked with
 * `GET /tasks?limit=1` and kept in this tab's `sessionStorage` only.
 *
 * @module
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { html } from "./html.ts";
import { api, ApiError, setToken, token } from "./api.ts";

/** The sign-in form; `onSignedIn` once the service took the token. */
export function SignIn({ onSignedIn }: { onSignedIn: () => void }): preact.VNode {
  const [value, setValue] = useState("");
  const [error, setError] = useState(token() ? "The service refused the token; sign in again." : "");
  const [busy, setBusy] = useState(false);
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => title.current?.focus(), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setToken(value.trim());
    try {
      await api("GET", "/tasks?limit=1");
      onSignedIn();
    } catch (err) {
      setToken("");
      setError(
        err instanceof ApiError && err.status === 401
          ? "The service does not know this token."
          : err instanceof ApiError && err.status === 403
          ? "This token may not read tasks (it needs tasks:read)."
          : (err as Error).message,
      );
    } finally {
      setBusy(false);
    }
  };
  return html`
    <h1 tabindex="-1" ref=${title}>Sign in</h1>
    <p>This service needs an access token. It is kept for this browser tab only.</p>
    <form class="card" onSubmit=${submit}>
      <label for="token-input">Access token</label>
      <input id="token-input" type="password" autocomplete="off" required value=${value}
        aria-describedby=${error ? "sign-in-error" : undefined}
        onInput=${(e: Event) => setValue((e.target as HTMLInputElement).value)} />
      <button type="submit" disabled=${busy}>Sign in</button>
      ${error && html`<p role="alert" id="sign-in-error" class="error">${error}</p>`}
    </form>
  `;
}
