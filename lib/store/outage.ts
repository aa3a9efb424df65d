/** Reports store failures and recoveries; one per process, shared by the routes, `/health` and the task runners. */
export interface StoreOutage {
  /** A call failed on the store; logged only when it is the first of an outage. */
  failed(where: string, error: Error): void;
  /** A store call succeeded; ends an outage, if any, with one line counting its failures. */
  answered(): void;
}

/**
 * Logs an outage twice, however many requests it fails: when the first fails (with the
 * cause) and when the store answers again (how long it lasted, how many requests failed).
 * A down store fails thousands of requests a second, and one line each buries the cause.
 *
 * @example
 * ```ts
 * const outage = storeOutage(console.error);
 * outage.failed("path=/health", new Error("Redis at 127.0.0.1:6379 is not reachable"));
 * outage.answered(); // "store answers again after 0.0 s; 1 call failed meanwhile"
 * ```
 */
export function storeOutage(log: (line: string) => void, now: () => number = Date.now): StoreOutage {
  let since: number | undefined;
  let failures = 0;
  return {
    failed(where, error) {
      failures++;
      if (since !== undefined) return;
      since = now();
      log(`store unreachable ${where}: ${error.message}`);
    },
    answered() {
      if (since === undefined) return;
      const seconds = ((now() - since) / 1000).toFixed(1);
      log(`store answers again after ${seconds} s; ${failures} call${failures === 1 ? "" : "s"} failed meanwhile`);
      since = undefined;
      failures = 0;
    },
  };
}
