/**
 * MCP's stdio transport over `ctl`'s own standard input and output: one JSON-RPC message per
 * line each way. Through the injected streams rather than the SDK's (which reads `process`), so
 * that it runs the same on Deno and Node and in tests.
 *
 * @module
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { StdIn, StdStream } from "../../lib/runtime/mod.ts";

/** A transport reading `stdin` line by line until it ends, writing to `stdout`. */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #closed = false;

  constructor(private readonly stdin: StdIn, private readonly stdout: StdStream) {}

  async start(): Promise<void> {
    const { JSONRPCMessageSchema } = await import("@modelcontextprotocol/sdk/types.js");
    void this.#read((line) => JSONRPCMessageSchema.parse(JSON.parse(line)) as JSONRPCMessage);
  }

  async #read(deserializeMessage: (line: string) => JSONRPCMessage): Promise<void> {
    try {
      for (let line = await this.stdin.readLine(); line !== undefined; line = await this.stdin.readLine()) {
        if (this.#closed) return;
        if (line.trim() === "") continue;
        let message: JSONRPCMessage;
        try {
          message = deserializeMessage(line);
        } catch (error) {
          this.onerror?.(new Error(`Not a JSON-RPC message: ${(error as Error).message}`));
          continue;
        }
        this.onmessage?.(message);
      }
    } catch (error) {
      this.onerror?.(error as Error);
    }
    await this.close();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.stdout.write(`${JSON.stringify(message)}\n`);
    await this.stdout.flush();
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.onclose?.();
    }
    return Promise.resolve();
  }
}
