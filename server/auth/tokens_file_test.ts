import { assert, assertEquals, assertMatch, assertRejects } from "../../testing/assert.ts";
import { until } from "../../testing/until.ts";
import { sha256Hex } from "./tokens.ts";
import { loadTokensFile } from "./tokens_file.ts";

const entry = (name: string, token: string, tenant = "acme") => ({
  name,
  tenant,
  scopes: ["admin"],
  sha256: sha256Hex(token),
});

function fakeFile(text: string) {
  const file = { text: text as string | undefined, reads: 0 };
  const lines: string[] = [];
  const options = {
    read: () => {
      file.reads++;
      return file.text === undefined ? Promise.reject(new Error("No such file")) : Promise.resolve(file.text);
    },
    log: (line: string) => lines.push(line),
  };
  return { file, lines, options };
}

Deno.test("loadTokensFile() refuses a bad file at start naming it and the entry, never the token", async () => {
  const { options } = fakeFile(JSON.stringify([{ name: "ci", tenant: "acme", scopes: ["admin"], token: "s3cret" }]));
  const error = await assertRejects(() => loadTokensFile("tokens.json", options));
  assertMatch(
    error.message,
    /SERVICE_TOKENS_FILE 'tokens.json' has bad entries:\n {2}- entry 1 \('ci'\): holds a 'token'/,
  );
  assert(!error.message.includes("s3cret"));
});

Deno.test("reload() swaps the tokens in use; an invalid text keeps them and logs why, once per text", async () => {
  const { file, lines, options } = fakeFile(JSON.stringify([entry("a", "token-a")]));
  const seen: string[][] = [];
  const tokens = await loadTokensFile("t.json", { ...options, beforeUse: (set) => seen.push([...set.tenants]) });
  assertEquals(tokens.tokens.lookup("token-a")?.name, "a");

  file.text = JSON.stringify([entry("b", "token-b", "newco")]);
  assertEquals(await tokens.reload("SIGHUP"), true);
  assertEquals([tokens.tokens.lookup("token-a"), tokens.tokens.lookup("token-b")?.tenant], [undefined, "newco"]);
  assertEquals([tokens.tokens.size, tokens.tokens.tenants, seen], [1, ["newco"], [["newco"]]]);
  assertEquals(lines.at(-1), "SERVICE_TOKENS_FILE 't.json' reloaded (SIGHUP): 1 token (was 1)");

  file.text = "[]";
  assertEquals(await tokens.reload("SIGHUP"), false);
  assertEquals(tokens.tokens.lookup("token-b")?.name, "b", "still in use");
  assertMatch(lines.at(-1)!, /not reloaded \(SIGHUP\): .*lists no tokens.*\n {2}still using the 1 token loaded before/);

  tokens.watch(10);
  const logged = lines.length;
  const reads = file.reads;
  await until("the watcher looked a few times", () => file.reads > reads + 3);
  assertEquals(lines.length, logged, "the same refused text is not logged again");
  file.text = undefined;
  await until("the watcher looked again", () => file.reads > reads + 6);
  file.text = JSON.stringify([entry("c", "token-c")]);
  await until("the change is noticed", () => tokens.tokens.lookup("token-c") !== undefined);
  assertMatch(lines.at(-1)!, /reloaded \(the file changed\): 1 token \(was 1\)/);
  tokens.close();
});
