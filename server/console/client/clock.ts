/**
 * A clock that re-renders relative times (`../time.ts`).
 *
 * @module
 */
import { useEffect, useState } from "preact/hooks";

/** The current time, updated every `ms`. */
export function useNow(ms = 5000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
