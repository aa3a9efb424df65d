/**
 * The console's shell: header, and the view the location hash names.
 *
 * @module
 */
import { html } from "htm/preact";
import type { VNode } from "preact";

/** The app. */
export function App(): VNode {
  return html`
    <header>
      <h1>storectl console</h1>
    </header>
    <main id="main"></main>
  `;
}
