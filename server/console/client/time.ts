/**
 * Relative times ("12 s ago") and a clock that re-renders them.
 *
 * @module
 */
import { useEffect, useState } from "preact/hooks";

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

/** The current time, updated every `ms`. */
export function useNow(ms = 5000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
