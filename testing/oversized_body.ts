/**
 * Sends a request whose body is far over any limit, over a raw loopback connection, and reads
 * the status line the server answers with: with a declared `Content-Length` (only the first
 * bytes are sent), or chunked without end (chunks go on until the server answers).
 *
 * @module
 */
export async function statusForOversizedBody(
  url: string,
  headers: Record<string, string>,
  mode: "declared" | "chunked",
): Promise<string> {
  const target = new URL(url);
  const conn = await Deno.connect({ hostname: target.hostname, port: Number(target.port) });
  const encoder = new TextEncoder();
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("");
  const framing = mode === "declared" ? "Content-Length: 524288000\r\n" : "Transfer-Encoding: chunked\r\n";
  const reader = conn.readable.getReader();
  try {
    await conn.write(encoder.encode(
      `POST ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: application/json\r\n${lines}${framing}\r\n`,
    ));
    let answered = false;
    const answer = reader.read().finally(() => answered = true);
    const chunk = encoder.encode(`10000\r\n${"x".repeat(0x10000)}\r\n`); // 64 KiB
    for (let sent = 0; !answered && sent < 64; sent++) { // at most 4 MiB
      await conn.write(mode === "declared" ? chunk.subarray(8, 8 + 0x10000) : chunk).catch(() => answered = true);
      await new Promise((r) => setTimeout(r, 5));
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("no answer within 5 s")), 5_000);
    });
    try {
      const { value } = await Promise.race([answer, timeout]);
      return new TextDecoder().decode(value).split("\r\n")[0];
    } finally {
      clearTimeout(timer);
    }
  } finally {
    reader.releaseLock();
    conn.close();
  }
}

/**
 * The emulator (plain HTTP on both sides) refuses oversized bodies on both APIs with 413,
 * declared or chunked, and keeps serving.
 */
export async function assertEmulatorBodyLimit(emulator: { cloudUrl: string; enterpriseUrl: string }): Promise<void> {
  const cloud = {
    url: `${emulator.cloudUrl}/subscriptions`,
    headers: { "x-api-key": "demo-key", "x-api-secret-key": "demo-secret" },
  };
  const enterprise = {
    url: `${emulator.enterpriseUrl}/v1/bdbs`,
    headers: { authorization: `Basic ${btoa("admin@example.com:demo-password")}` },
  };
  const statuses = [];
  for (const side of [cloud, enterprise]) {
    for (const mode of ["declared", "chunked"] as const) {
      statuses.push(`${mode}: ${await statusForOversizedBody(side.url, side.headers, mode)}`);
    }
  }
  const expected = (mode: string) => `${mode}: HTTP/1.1 413 Payload Too Large`;
  if (JSON.stringify(statuses) !== JSON.stringify(["declared", "chunked", "declared", "chunked"].map(expected))) {
    throw new Error(`expected 413 for every oversized body, got:\n${statuses.join("\n")}`);
  }
  const res = await fetch(`${emulator.cloudUrl}/regions`, { headers: cloud.headers });
  await res.body?.cancel();
  if (res.status !== 200) throw new Error(`the emulator stopped serving: GET /regions answered ${res.status}`);
}
