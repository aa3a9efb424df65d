/**
 * The console's entry in the browser: renders the app into `#app`.
 *
 * @module
 */
import { render } from "preact";
import { html } from "./html.ts";
import { App } from "./app.ts";

render(html`<${App} />`, document.getElementById("app")!);
