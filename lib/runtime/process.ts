import process from "node:process";

/** Command-line arguments after the script name. */
export function args(): string[] {
  return process.argv.slice(2);
}

/** The value of an environment variable, or undefined. */
export function env(name: string): string | undefined {
  return process.env[name];
}

/** Ends the process with `code`. */
export function exit(code: number): never {
  return process.exit(code);
}

/** Calls `handler` once, on the first SIGINT or SIGTERM. */
export function onShutdownSignal(handler: (signal: "SIGINT" | "SIGTERM") => void): void {
  let called = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (!called) handler(signal);
      called = true;
    });
  }
}
