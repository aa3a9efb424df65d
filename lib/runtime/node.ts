/**
 * The runtime on Node (the bundles in `dist/`): `node:*` APIs.
 *
 * @module
 */
import { createRequire } from "node:module";
import { homedir } from "node:os";
import process from "node:process";
import { createFileSystem } from "./file_system.ts";
import { nodeFsOps } from "./node/fs.ts";
import { nodeGunzip, nodeGzip } from "./node/gzip.ts";
import { nodeLaunchDetached } from "./node/launch.ts";
import { onFirstTerminatingSignal } from "./signals.ts";
import { nodeServe } from "./node/serve.ts";
import { nodeStdin, nodeStdStream } from "./node/stdio.ts";
import { nodeTransport } from "./node/transport.ts";
import type { Runtime } from "./types.ts";

export const runtime: Runtime = {
  name: "node",
  args: process.argv.slice(2),
  env: () => ({ ...process.env }),
  cwd: () => process.cwd(),
  homeDir: () => homedir(),
  exit: (code) => process.exit(code),
  onTerminate: (handler, signals) =>
    onFirstTerminatingSignal((name, listener) => process.on(name, listener), handler, signals),
  onHangup: (handler) => void process.on("SIGHUP", handler),
  stdin: nodeStdin,
  stdout: nodeStdStream(process.stdout),
  stderr: nodeStdStream(process.stderr),
  fs: createFileSystem(nodeFsOps),
  serve: nodeServe,
  gzip: nodeGzip,
  gunzip: nodeGunzip,
  launchDetached: nodeLaunchDetached,
  createTransport: nodeTransport,
  startWorker(script) {
    // Loaded on first use: ctl never indexes, and loading worker_threads costs it ~2 ms.
    const { Worker } = createRequire(import.meta.url)("node:worker_threads") as typeof import("node:worker_threads");
    // The build puts the worker beside the code-split chunks, one of which holds this file.
    const worker = new Worker(new URL(`./${script.bundled}`, import.meta.url));
    return {
      postMessage: (message) => worker.postMessage(message),
      onMessage: (listener) => worker.on("message", listener),
      close: () => void worker.terminate(),
    };
  },
};
