import type { Random } from "../random.ts";

/** The shape of one kind of log file found in a support package. */
export interface LogStyle {
  /** Written after the timestamp, e.g. a process tag. */
  readonly tag: string;
  /** Message prefixes; each line ends with a random number. */
  readonly messages: readonly string[];
}

export const LOG_STYLES = {
  redis: {
    tag: " 4242:M ",
    messages: [
      "* Accepted client connection from 10.0.0.",
      "* Background saving started by pid ",
      "* DB saved on disk, bytes written: ",
      "* Client closed connection id=",
      "* RDB: memory used by copy-on-write, MB: ",
      "* Synchronization with replica 10.0.1.",
      "# WARNING: slow command, microseconds: ",
      "* MASTER <-> REPLICA sync: Finished with success, offset ",
    ],
  },
  proxy: {
    tag: " dmcproxy[311]: ",
    messages: [
      "INFO listener: new client connection, fd ",
      "INFO shard: endpoint reconnected, shard ",
      "WARN client: idle connection closed, fd ",
      "INFO stats: ops per second ",
    ],
  },
  event: {
    tag: " event_log: ",
    messages: [
      '{"type":"bdb_backup_succeeded","bdb_uid":',
      '{"type":"node_checked","severity":"INFO","node_uid":',
      '{"type":"cluster_license_checked","days_left":',
      '{"type":"shard_migration_done","shard_uid":',
    ],
  },
  http: {
    tag: " cnm_http: ",
    messages: [
      '127.0.0.1 "GET /v1/bdbs HTTP/1.1" 200 ',
      '127.0.0.1 "GET /v1/nodes HTTP/1.1" 200 ',
      '127.0.0.1 "PUT /v1/cluster HTTP/1.1" 200 ',
      '127.0.0.1 "GET /v1/cluster/stats/last HTTP/1.1" 200 ',
    ],
  },
} as const satisfies Record<string, LogStyle>;

const CHUNK_BYTES = 64 * 1024;
const encoder = new TextEncoder();

/**
 * Yields exactly `size` bytes of timestamped log lines in chunks of at most 64 KiB.
 *
 * Lines are written byte by byte into each chunk rather than built as strings: this runs
 * several times faster, which matters for gigabyte-sized packages.
 */
export function* logChunks(
  random: Random,
  style: LogStyle,
  size: number,
  startMs: number,
): Generator<Uint8Array<ArrayBuffer>> {
  const tag = encoder.encode(style.tag);
  const messages = style.messages.map((m) => encoder.encode(m));
  const longest = Math.max(...messages.map((m) => m.length));
  const maxLine = 24 + tag.length + longest + 11;
  let stamp = encoder.encode(new Date(startMs).toISOString()); // 2026-01-01T00:00:00.000Z
  let now = startMs;
  let second = Math.floor(now / 1000);
  let left = size;
  while (left > 0) {
    const chunk = new Uint8Array(Math.min(CHUNK_BYTES, left + maxLine));
    let pos = 0;
    while (pos + maxLine <= chunk.length && pos < left) {
      now += random.int(0, 40);
      if (Math.floor(now / 1000) !== second) {
        second = Math.floor(now / 1000);
        stamp = encoder.encode(new Date(now).toISOString());
      }
      writeMillis(stamp, now % 1000);
      chunk.set(stamp, pos);
      pos += stamp.length;
      chunk.set(tag, pos);
      pos += tag.length;
      const message = messages[random.int(0, messages.length - 1)];
      chunk.set(message, pos);
      pos += message.length;
      pos = writeDecimal(chunk, pos, random.int(0, 99999));
      chunk[pos++] = 0x0a;
    }
    const length = Math.min(pos, left);
    chunk[length - 1] = 0x0a; // a file cut short still ends with a newline
    left -= length;
    yield chunk.subarray(0, length);
  }
}

function writeMillis(stamp: Uint8Array, millis: number) {
  stamp[20] = 0x30 + Math.floor(millis / 100);
  stamp[21] = 0x30 + (Math.floor(millis / 10) % 10);
  stamp[22] = 0x30 + (millis % 10);
}

function writeDecimal(target: Uint8Array, pos: number, value: number): number {
  const start = pos;
  do {
    target[pos++] = 0x30 + (value % 10);
    value = Math.floor(value / 10);
  } while (value > 0);
  target.subarray(start, pos).reverse();
  return pos;
}
