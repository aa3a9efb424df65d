/**
 * A Node program for `transport_test.ts`: bundled and run with the real `node`, it sends one
 * request through `nodeTransport` as its JSON argument describes and prints a `ProbeResult`
 * as JSON. Before anything loads, it traps the globals that would load Node's bundled undici.
 *
 * @module
 */
import process from "node:process";
import type { ProbeRequest, ProbeResult } from "./transport_probe_types.ts";

// Record every touch of the globals backed by Node's bundled undici, without touching them.
const touched = new Set<string>();
for (const name of ["fetch", "Request", "Response", "Headers", "FormData"]) {
  const original = Object.getOwnPropertyDescriptor(globalThis, name);
  if (!original) continue;
  Object.defineProperty(globalThis, name, {
    configurable: true,
    enumerable: original.enumerable,
    get() {
      touched.add(name);
      return original.get ? original.get.call(globalThis) : original.value;
    },
  });
}

// The reason aborts use, to check that the promise or stream rejects with exactly it.
const reason = new Error("probe abort");

// The highest resident set size seen while sending or reading a body.
let maxRss = 0;
const sampleRss = () => void (maxRss = Math.max(maxRss, process.memoryUsage.rss()));

const { nodeTransport } = await import("./transport.ts");
const { classifyFailure, describeFailure } = await import("../../http/classify.ts");

const probe: ProbeRequest = JSON.parse(process.argv[2]);
const result: ProbeResult = await run(probe).catch((error) => ({ error: failure(error) }));
const loaded = (process as unknown as { moduleLoadList: string[] }).moduleLoadList;
result.nodeUndiciLoaded = loaded.includes("NativeModule internal/deps/undici/undici");
// npm undici (the proxy path) needs node:http2; nothing on the direct path does.
result.http2Loaded = loaded.includes("NativeModule http2");
result.touched = [...touched];
result.doneAt = Date.now();
process.stdout.write(`${JSON.stringify(result)}\n`);

function failure(error: unknown): ProbeResult["error"] {
  return {
    text: describeFailure(error),
    kind: classifyFailure(error),
    isReason: error === reason,
  };
}

async function run(probe: ProbeRequest): Promise<ProbeResult> {
  if (probe.fetchControl) await fetch(probe.url).then((r) => r.body?.cancel());
  const transport = await nodeTransport({ env: probe.env ?? {}, caCert: probe.caCert, insecure: probe.insecure });
  const controller = new AbortController();
  if (probe.abortAfterMs !== undefined) setTimeout(() => controller.abort(reason), probe.abortAfterMs);
  const response = await transport({
    url: probe.url,
    method: probe.method ?? "GET",
    headers: probe.headers ?? {},
    body: requestBody(probe),
    signal: controller.signal,
  });
  const result: ProbeResult = {
    status: response.status,
    statusText: response.statusText,
    headers: Object.fromEntries((probe.readHeaders ?? []).map((name) => [name, response.headers.get(name)])),
  };
  if (!response.body) return result;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  let nextPause = probe.pauseEveryBytes ?? Infinity;
  try {
    for (let chunks = 0;; chunks++) {
      if (chunks % 16 === 0) sampleRss();
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      if (!probe.countOnly) text += decoder.decode(value, { stream: true });
      if (bytes >= nextPause) {
        // A transport that ignored backpressure would keep reading into memory meanwhile.
        nextPause += probe.pauseEveryBytes!;
        await new Promise((resolve) => setTimeout(resolve, probe.pauseMs ?? 0));
      }
      if (probe.abortAfterBytes !== undefined && bytes >= probe.abortAfterBytes) controller.abort(reason);
      if (probe.cancelAfterBytes !== undefined && bytes >= probe.cancelAfterBytes) {
        await reader.cancel();
        break;
      }
    }
  } catch (error) {
    return { ...result, bytes, error: failure(error) };
  }
  return { ...result, bytes, maxRss, ...(!probe.countOnly && { text: text + decoder.decode() }) };
}

function requestBody(probe: ProbeRequest): string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | undefined {
  const body = probe.body;
  if (body === undefined) return undefined;
  if (body.kind !== "stream") return body.kind === "string" ? body.text : new TextEncoder().encode(body.text);
  const { chunks, chunkSize } = body;
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      sampleRss();
      if (sent === chunks) return controller.close();
      controller.enqueue(new Uint8Array(chunkSize).fill(97 + (sent++ % 26)));
    },
  }, { highWaterMark: 0 });
}
