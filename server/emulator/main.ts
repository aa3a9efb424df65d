/**
 * Starts the emulator: `deno task emulator [--tls] [--cloud-port 8081] …` (see `--help`).
 *
 * @module
 */
import { loadRuntime, type Runtime } from "../../lib/runtime/mod.ts";
import { createEmulator, generateSelfSignedCertificate } from "./mod.ts";
import { parseEmulatorArgs } from "./options.ts";

const runtime: Runtime = await loadRuntime();
const parsed = await parseEmulatorArgs(runtime.args, {
  stdout: (text) => runtime.stdout.write(text),
  stderr: (text) => runtime.stderr.write(text),
});
if ("exitCode" in parsed) {
  await runtime.stderr.flush();
  runtime.exit(parsed.exitCode);
}
const launch = parsed;

const tls = launch.tls ? await generateSelfSignedCertificate("storectl emulator") : undefined;
if (tls && launch.caOut) await runtime.fs.writeFileAtomic(launch.caOut, tls.cert);
const emulator = createEmulator({ ...launch, certificate: tls?.cert, gzip: runtime.gzip });

try {
  const cloud = await runtime.serve({ port: launch.cloudPort, fetch: emulator.cloud.fetch });
  const enterprise = await runtime.serve({ port: launch.enterprisePort, fetch: emulator.enterprise.fetch, tls });
  console.log(`storectl emulator (seed ${launch.seed}, enterprise ${launch.softwareVersion})
  cloud API:      ${cloud.url}/v1   x-api-key: ${launch.apiKey}   x-api-secret-key: ${launch.apiSecret}
  enterprise API: ${enterprise.url}/v1   user: ${launch.username}   password: ${launch.password}${
    tls ? `\n  certificate:    ${launch.caOut ?? "self-signed (use --ca-out <file> to save it)"}` : ""
  }
  faults:         POST {"kind":"status|drop|stall","count":N} to <api>/__emulator/faults
Press Ctrl+C to stop.`);
  runtime.onTerminate(async () => {
    await Promise.all([cloud.close(), enterprise.close()]);
    runtime.exit(0);
  });
} catch (error) {
  console.error(
    `emulator: cannot listen: ${(error as Error).message}\n` +
      "Another process may hold the port; choose others with --cloud-port and --enterprise-port (0 picks a free one).",
  );
  runtime.exit(1);
}
