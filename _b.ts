import { packageStream } from "./server/emulator/debuginfo/package.ts";
const mb = Number(Deno.args[0]);
const s = packageStream({
  seed: 1,
  sizeMb: mb,
  scope: { kind: "cluster" },
  cluster: { name: "c", softwareVersion: "7.2.4" },
  nodes: [1, 2, 3].map((uid) => ({ uid, addr: `10.0.0.${uid}` })),
  bdbs: [1, 2, 3, 4].map((uid) => ({ uid, name: `db${uid}` })),
});
const t0 = performance.now();
let n = 0, max = 0;
for await (const c of s) {
  n += c.length;
  const r = Deno.memoryUsage().rss;
  if (r > max) max = r;
}
console.log(
  `${mb}MB -> ${(n / 1048576).toFixed(1)}MB gz in ${((performance.now() - t0) / 1000).toFixed(2)}s rss ${
    (max / 1048576).toFixed(0)
  }MB`,
);
