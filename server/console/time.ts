/**
 * Relative times ("12 s ago") for the console; plain TypeScript (no DOM, no Preact) so that the
 * server's tests check it too. The clock that re-renders them is `client/clock.ts`.
 *
 * @module
 */

/** How long before `now` the instant `iso` was, in words. */
export function ago(iso: string, now: number): string {
  const s = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  if (s < 1) return "just now";
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} d ago`;
}

/** The exact local time of `iso`, for a tooltip. */
export const exact = (iso: string): string => new Date(iso).toLocaleString();
