import type { FailureKind } from "../../http/classify.ts";

/** What `transport_probe.ts` sends and how it reads the response. */
export interface ProbeRequest {
  readonly url: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  /** Text or bytes, or a stream of `chunks` chunks of `chunkSize` bytes made as they are pulled. */
  readonly body?:
    | { readonly kind: "string" | "bytes"; readonly text: string }
    | { readonly kind: "stream"; readonly chunks: number; readonly chunkSize: number };
  readonly caCert?: string;
  readonly insecure?: boolean;
  readonly env?: Record<string, string>;
  /** Response headers to report. */
  readonly readHeaders?: string[];
  /** Count the body's bytes instead of returning its text. */
  readonly countOnly?: boolean;
  /** Pause `pauseMs` after every `pauseEveryBytes` read: a slow consumer. */
  readonly pauseEveryBytes?: number;
  readonly pauseMs?: number;
  readonly abortAfterMs?: number;
  readonly abortAfterBytes?: number;
  readonly cancelAfterBytes?: number;
  /** Call the global `fetch` first: the control that shows the load checks can fail. */
  readonly fetchControl?: boolean;
}

/** What the probe saw, printed as one JSON line. */
export interface ProbeResult {
  status?: number;
  statusText?: string;
  headers?: Record<string, string | null>;
  text?: string;
  bytes?: number;
  /** The highest resident set size seen while reading the body. */
  maxRss?: number;
  error?: {
    /** Messages and codes along the cause chain (`describeFailure`). */
    readonly text: string;
    readonly kind: FailureKind;
    /** Whether the error is the very reason the probe aborted with. */
    readonly isReason: boolean;
  };
  nodeUndiciLoaded?: boolean;
  http2Loaded?: boolean;
  /** Globals backed by Node's undici that were read (`fetch`, `Response`, …). */
  touched?: string[];
  /** `Date.now()` when the result was printed, to measure how soon the process exits. */
  doneAt?: number;
}
