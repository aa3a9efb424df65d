/**
 * The toolkit as others use it: `mod.ts` imported from a file outside the repository, its
 * examples run as written, and `deno.json` ready to publish it.
 */
import { assertEquals } from "../testing/assert.ts";
import { startEmulator } from "../testing/emulator_process.ts";

const ROOT = new URL("..", import.meta.url);

async function deno(args: string[], cwd: string) {
  const out = await new Deno.Command(Deno.execPath(), { args, cwd, stdout: "piped", stderr: "piped" }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

Deno.test("mod.ts from a user's own file: a cloud client with its defaults against the emulator", async () => {
  await using emulator = await startEmulator(["--task-delay-ms", "100"]);
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      `${dir}/user.ts`,
      `import { createCloudClient, createDatabase, listSubscriptions, waitForTask } from "${new URL("mod.ts", ROOT)}";
const cloud = createCloudClient({ apiKey: "demo-key", apiSecret: "demo-secret", apiUrl: "${emulator.cloudUrl}" });
const [first] = await listSubscriptions(cloud);
const { taskId } = await createDatabase(cloud, first.id, { name: "from-a-user", datasetSizeInGb: 1 });
const task = await waitForTask(cloud, taskId, { intervalMs: 50 });
console.log(task.status, task.response?.additionalResourceId === first.id);
`,
    );
    const run = await deno(["run", "-A", "--import-map", new URL("deno.json", ROOT).href, "user.ts"], dir);
    assertEquals([run.code, run.stdout], [0, "processing-completed true\n"], run.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("mod.ts: every example of its documentation type-checks and runs (deno test --doc, as it is)", async () => {
  const run = await deno(["test", "-A", "--doc", "mod.ts"], ROOT.pathname);
  assertEquals(run.code, 0, run.stdout + run.stderr);
});

Deno.test("deno.json names the package, its version (package.json's) and an entry point per part", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const manifest = JSON.parse(await Deno.readTextFile(new URL("package.json", ROOT)));
  assertEquals([config.name, config.version], ["@storectl/storectl", manifest.version]);
  for (const [entry, file] of Object.entries(config.exports as Record<string, string>)) {
    assertEquals((await Deno.stat(new URL(file, ROOT))).isFile, true, `${entry} → ${file}`);
  }
});
