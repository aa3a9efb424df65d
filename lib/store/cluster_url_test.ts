import { assertEquals } from "../../testing/assert.ts";
import { isClusterUrl, parseClusterUrl } from "./cluster_url.ts";

Deno.test("parseClusterUrl: nodes, default port, IPv6, TLS, user and password", () => {
  assertEquals(parseClusterUrl("redis-cluster://10.0.0.1:7000,h2,[::1]:7002"), {
    nodes: [{ host: "10.0.0.1", port: 7000 }, { host: "h2", port: 6379 }, { host: "::1", port: 7002 }],
    tls: false,
  });
  assertEquals(parseClusterUrl("rediss-cluster://app:p%40ss@h1:7000/"), {
    nodes: [{ host: "h1", port: 7000 }],
    tls: true,
    username: "app",
    password: "p@ss",
  });
  assertEquals(parseClusterUrl("redis-cluster://:secret@h1:1").password, "secret");
  assertEquals([isClusterUrl("redis-cluster://h:1"), isClusterUrl("redis://h:1")], [true, false]);
});

Deno.test("parseClusterUrl: a bad URL says what is wrong, never the password", () => {
  for (
    const [url, words] of [
      ["redis-cluster://", "names no cluster node"],
      ["redis-cluster://h1:7000,,h2:7000", "empty one"],
      ["redis-cluster://:hunter2@h1:99999", "'h1:99999' is not host:port"],
      ["redis-cluster://h1:70a0", "'h1:70a0' is not host:port"],
      ["redis-cluster://h1:7000/0", "not a cluster URL"],
      ["redis-cluster://:%E0%A4%A@h1:1", "not URL-encoded"],
    ]
  ) {
    let message = "";
    try {
      parseClusterUrl(url);
    } catch (error) {
      message = (error as Error).message;
    }
    assertEquals(message.includes(words), true, `${url}: '${message}'`);
    assertEquals(message.includes("hunter2"), false);
  }
});
