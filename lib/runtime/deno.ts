/**
 * The runtime on Deno: `Deno.*` APIs only, so that nothing on `ctl`'s path starts Deno's Node
 * compatibility layer (it costs 20–50 ms per `node:` module).
 *
 * @module
 */
import { createFileSystem } from "./file_system.ts";
import { denoFsOps } from "./deno/fs.ts";
import { onFirstTerminatingSignal } from "./signals.ts";
import { denoStdin, denoStdStream } from "./deno/stdio.ts";
import type { Runtime } from "./types.ts";
import { webGunzip } from "./web_gunzip.ts";

export const runtime: Runtime = {
  name: "deno",
  args: Deno.args,
  env: () => Deno.env.toObject(),
  cwd: () => Deno.cwd(),
  homeDir: () => Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? Deno.cwd(),
  exit: (code) => Deno.exit(code),
  onTerminate: (handler, signals) =>
    onFirstTerminatingSignal((name, listener) => Deno.addSignalListener(name, listener), handler, signals),
  onHangup: (handler) => Deno.addSignalListener("SIGHUP", handler),
  stdin: denoStdin,
  stdout: denoStdStream(Deno.stdout),
  stderr: denoStdStream(Deno.stderr),
  fs: createFileSystem(denoFsOps),
  // Loaded when used: `ctl` never serves, and rarely detaches.
  serve: async (options) => (await import("./deno/serve.ts")).denoServe(options),
  gzip: () => new CompressionStream("gzip"),
  gunzip: webGunzip,
  launchDetached: async (...args) => (await import("./deno/launch.ts")).denoLaunchDetached(...args),
  startWorker(script) {
    const worker = new Worker(script.module, { type: "module" });
    return {
      postMessage: (message) => worker.postMessage(message),
      onMessage: (listener) => worker.addEventListener("message", (event) => listener(event.data)),
      close: () => worker.terminate(),
    };
  },
  createTransport: async (options) => (await import("./deno/transport.ts")).denoTransport(options),
};
