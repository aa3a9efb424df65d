import { assertEquals } from "../../../testing/assert.ts";
import { CLUSTER_PARTITIONS, keySlot, spreadOrder, TaskLayout } from "./layout.ts";

Deno.test("keySlot: Redis Cluster's slots (CRC16 of the hash tag)", () => {
  // Values from CLUSTER KEYSLOT on redis-server 7.0.
  assertEquals([keySlot("foo"), keySlot("bar"), keySlot("{user1000}.following")], [12182, 5061, 3443]);
  assertEquals(keySlot("{user1000}.followers"), keySlot("{user1000}.following"));
  assertEquals(keySlot("foo{}{bar}"), keySlot("foo{}{bar}"));
});

Deno.test("TaskLayout: one partition keeps the {t} tag; a cluster's partitions spread evenly over the slots", () => {
  const single = new TaskLayout("p:", 1);
  assertEquals([single.keys(0), single.rootPartition("anything"), single.channelKeys("global")], [
    "p:{t}:",
    0,
    "p:{t}:",
  ]);
  const cluster = new TaskLayout("p:", CLUSTER_PARTITIONS);
  const slots = Array.from({ length: CLUSTER_PARTITIONS }, (_, b) => keySlot(cluster.keys(b) + "task:x"));
  assertEquals(slots.map((slot) => Math.floor(slot / (16384 / CLUSTER_PARTITIONS))), [...slots.keys()]);
  // Fixed ids, enough of them to reach every partition (random ones made this a draw: 200 missed one of 48 half the time).
  const used = new Set(Array.from({ length: 2_000 }, (_, i) => cluster.rootPartition(`root-${i}`)));
  assertEquals(used.size, CLUSTER_PARTITIONS);
  assertEquals(cluster.channelKeys("control"), "p:{c:control}:");
});

Deno.test("TaskLayout: a session's root ids and channel land in the session's partition", () => {
  const cluster = new TaskLayout("p:", CLUSTER_PARTITIONS);
  const homes = new Set<number>();
  for (const session of ["s1", "s2", "a-much-longer-session-id", "ünïcode"]) {
    const home = cluster.sessionPartition(session);
    homes.add(home);
    for (let i = 0; i < 20; i++) assertEquals(cluster.rootPartition(cluster.newRootId(session)), home);
    assertEquals(cluster.channelKeys(`session:${session}`), cluster.keys(home));
  }
  assertEquals(homes.size > 1, true, "sessions spread");
  assertEquals(cluster.channelKeys("global"), "p:{c:global}:");
  const single = new TaskLayout("p:", 1);
  assertEquals([single.sessionPartition("s1"), single.channelKeys("session:s1")], [0, "p:{t}:"]);
});

Deno.test("spreadOrder: every partition once; any 16 in a row fall evenly on masters owning equal parts", () => {
  assertEquals(spreadOrder(8), [0, 4, 2, 6, 1, 5, 3, 7]);
  for (const n of [16, CLUSTER_PARTITIONS]) {
    const order = spreadOrder(n);
    assertEquals([...order].sort((a, b) => a - b), [...Array(n).keys()]);
    for (const masters of [2, 3, 4, 6]) {
      for (let start = 0; start < n; start++) {
        const row = Array.from({ length: 16 }, (_, i) => order[(start + i) % n]);
        const perMaster = Array.from(
          { length: masters },
          (_, m) => row.filter((b) => Math.floor(b * masters / n) === m).length,
        );
        const even = 16 / masters;
        assertEquals(
          perMaster.every((c) => c >= Math.floor(even) - 1 && c <= Math.ceil(even) + 1),
          true,
          `${n} over ${masters}: ${perMaster}`,
        );
      }
    }
  }
});
