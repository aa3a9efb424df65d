/**
 * Starts the emulator: `deno task emulator [--tls] [--cloud-port 8081] …` (see `--help`). Bad
 * options exit 2; a port or `--ca-out` file it cannot use exits 1 with one line saying which.
 *
 * @module
 */
import { loadRuntime, resolvePath, type Runtime, type ServeLog, type ServeOptions } from "../lib/runtime/mod.ts";
import { wrapHelp } from "../lib/text/mod.ts";
import { listenFailure } from "../lib/serve/mod.ts";
import { createEmulator, FILES_API_KEY, generateSelfSignedCertificate } from "./mod.ts";
import { parseEmulatorArgs } from "./options.ts";

const runtime: Runtime = await loadRuntime();
const parsed = await parseEmulatorArgs(runtime.args, {
  stdout: (text) => runtime.stdout.write(wrapHelp(text, runtime.stdout.columns())),
  stderr: (text) => runtime.stderr.write(text),
});
if ("exitCode" in parsed) {
  // Help went to stdout, a mistake to stderr: both must reach a pipe before the exit.
  await Promise.all([runtime.stdout.flush(), runtime.stderr.flush()]);
  runtime.exit(parsed.exitCode);
}
// A relative --ca-out is written where the command was run (npm and deno task run it from the checkout).
const launch = parsed.caOut === undefined
  ? parsed
  : { ...parsed, caOut: resolvePath(runtime.env().INIT_CWD ?? runtime.cwd(), parsed.caOut) };

const tls = launch.tls ? await generateSelfSignedCertificate("storectl emulator") : undefined;
if (tls && launch.caOut) {
  await runtime.fs.writeFileAtomic(launch.caOut, tls.cert).catch((error: Error) => {
    console.error(
      `storectl emulator cannot write the certificate to ${launch.caOut}: ${error.message}; choose a writable --ca-out path`,
    );
    return runtime.exit(1);
  });
}
const env = runtime.env();
const debug = /debug|trace/.test(env.STORE_LOG ?? env.RUST_LOG ?? ""); // as ctl reads it
const emulator = createEmulator({ ...launch, certificate: tls?.cert, gzip: runtime.gzip, debug });

const log: ServeLog = (level, line) => (level !== "debug" || debug) && console.error(`storectl emulator: ${line}`);

/** Listens on 127.0.0.1, or ends the process with one line naming the address and `option`. */
function listen(option: string, port: number, fetch: ServeOptions["fetch"], certificate?: ServeOptions["tls"]) {
  return runtime.serve({ port, fetch, tls: certificate, log }).catch((error) => {
    const target = { program: "storectl emulator", hostname: "127.0.0.1", port, portFix: `choose another ${option}` };
    console.error(listenFailure(error, target));
    return runtime.exit(1);
  });
}

const cloud = await listen("--cloud-port", launch.cloudPort, emulator.cloud.fetch);
const enterprise = await listen("--enterprise-port", launch.enterprisePort, emulator.enterprise.fetch, tls);
console.log(`storectl emulator (seed ${launch.seed}, enterprise ${launch.softwareVersion})
  cloud API:      ${cloud.url}/v1   x-api-key: ${launch.apiKey}   x-api-secret-key: ${launch.apiSecret}
  enterprise API: ${enterprise.url}/v1   user: ${launch.username}   password: ${launch.password}${
  tls ? `\n  certificate:    ${launch.caOut ?? "self-signed (use --ca-out <file> to save it)"}` : ""
}
  files API:      ${cloud.url}/files/api/rest/v1   X-FilesAPI-Key: ${FILES_API_KEY}
  faults:         POST {"kind":"status|drop|stall","count":N} to <api>/__emulator/faults
Press Ctrl+C to stop.`);
runtime.onTerminate(async () => {
  await Promise.all([cloud.close(), enterprise.close()]);
  runtime.exit(0);
});
