/**
 * `html`: htm bound to Preact's `h`, the console's templates (no JSX build step).
 *
 * @module
 */
import htmModule from "htm";
import { h } from "preact";

type Htm = { bind<R>(h: (...args: never[]) => R): (strings: TemplateStringsArray, ...values: unknown[]) => R };
// htm's types describe a CommonJS module to Deno; the browser build gets its ES module's default.
const htm = ((htmModule as { default?: Htm }).default ?? htmModule) as Htm;

/** Tagged template that makes Preact elements: ``html`<p>${text}</p>` ``. */
export const html: (strings: TemplateStringsArray, ...values: unknown[]) => preact.VNode = htm.bind(h as never);
