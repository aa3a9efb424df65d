import { assertEquals, assertMatch } from "../../testing/assert.ts";
import { runtime } from "../runtime/deno.ts";
import { type JobRecord, jobsFile, jobStore, newJobId } from "./jobs.ts";

const job = (id: string, started: string): JobRecord => ({
  task_id: id,
  status: "in_progress",
  progress: 0,
  message: "",
  package_type: "cluster",
  started,
  updated: started,
});

Deno.test("jobsFile() follows XDG_STATE_HOME, else ~/.local/state", () => {
  assertEquals(jobsFile({ XDG_STATE_HOME: "/s" }, "/h"), "/s/storectl/support-packages.json");
  assertEquals(jobsFile({}, "/h"), "/h/.local/state/storectl/support-packages.json");
  assertMatch(newJobId(new Date(Date.UTC(2026, 0, 31, 8, 5, 9))), /^sp-20260131T080509-[0-9a-f]{4}$/);
});

Deno.test("jobStore() keeps jobs newest first, replaces by id, survives parallel writers and a damaged file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/state/jobs.json`;
    const store = jobStore(runtime.fs, file);
    assertEquals(await store.list(), []);
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.put(job(`sp-${i}`, `2026-01-0${i + 1}T00:00:00Z`))),
    );
    assertEquals((await store.list()).map((j) => j.task_id), [
      "sp-7",
      "sp-6",
      "sp-5",
      "sp-4",
      "sp-3",
      "sp-2",
      "sp-1",
      "sp-0",
    ]);
    await store.put({ ...job("sp-3", "2026-01-04T00:00:00Z"), status: "completed" });
    assertEquals((await store.get("sp-3"))?.status, "completed");
    assertEquals((await store.list()).length, 8);
    await Deno.writeTextFile(file, "{ not json");
    assertEquals(await store.list(), []);
    await store.put(job("sp-9", "2026-02-01T00:00:00Z"));
    assertEquals((await store.list()).map((j) => j.task_id), ["sp-9"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
