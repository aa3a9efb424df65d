import { testApp } from "../testing/service.ts";
const N = Number(Deno.env.get("N") ?? 20000);
async function build(env: Record<string,string>) {
  const served = testApp({ env: { RATE_LIMIT_MAX: "1000000", ...env } });
  const res = await served.app.request("/tasks", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ kind: "demo", input: { steps: 0 } }) });
  const { task_id } = await res.json();
  await new Promise((r) => setTimeout(r, 200));
  return { served, path: `/tasks/${task_id}` };
}
const variants = { off: await build({}), on: await build({}) };
const basic = { authorization: `Basic ${btoa("b:x")}` };
import process from "node:process";
async function run(v: { served: any; path: string }, limited: boolean) {
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    const r = limited ? await v.served.app.request("/api/RateLimited/sliding", { headers: basic }) : await v.served.app.request(v.path);
    await r.arrayBuffer();
  }
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / N;
}
for (const limited of [false, true]) {
  const ratios: number[] = []; let offs: number[] = [], ons: number[] = [];
  for (let k = 0; k < 9; k++) {
    const a = await run(variants.off, limited); const b = await run(variants.on, limited);
    offs.push(a); ons.push(b); ratios.push(b / a);
  }
  ratios.sort(); offs.sort(); ons.sort();
  console.log(`${limited ? "limited" : "get"}: off ${offs[4].toFixed(2)} µs on ${ons[4].toFixed(2)} µs ratio ${ratios[4].toFixed(3)} (+${(ons[4]-offs[4]).toFixed(2)} µs)`);
}
Deno.exit(0);
