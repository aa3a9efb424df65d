import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { EMULATOR_ENV, inProcessCtl } from "../../testing/ctl_in_process.ts";
import { hoistGlobals } from "./app.ts";
import { wrapHelp } from "../../lib/text/mod.ts";

Deno.test("ctl with no command prints its help and exits 0; a group without one exits 2 with a clean message", async () => {
  await using ctl = await inProcessCtl();
  const root = await ctl([]);
  assertEquals([root.code, root.stderr], [0, ""]);
  assertMatch(root.stdout, /^USAGE\n/);
  assertMatch(root.stdout, /COMMANDS\n {2}api +send a raw request/);
  const group = await ctl(["profile"]);
  assertEquals([group.code, group.stdout], [2, ""]);
  assertMatch(group.stderr, /^USAGE\n {2}ctl profile set <name>\n/);
  assertMatch(
    group.stderr,
    /\nError: 'ctl profile' needs a command: set, list, show, path, default, remove, current\n$/,
  );
  assert(!group.stderr.includes("outputHelp"));
});

Deno.test("help: ctl help <command> equals --help, wraps at the terminal width, and lists the flags that apply", async () => {
  await using ctl = await inProcessCtl();
  const viaHelp = await ctl(["help", "profile", "set"]);
  assertEquals(viaHelp.code, 0);
  assertEquals(viaHelp.stdout, (await ctl(["profile", "set", "--help"])).stdout);
  assertMatch(viaHelp.stdout, /^USAGE\n {2}ctl profile set <name>\n/);
  const narrow = await ctl(["--help"], { tty: { stdout: true }, columns: 60 });
  for (const line of narrow.stdout.split("\n")) assert([...line].length <= 60 || !line.includes(" "), line);
  const api = await ctl(["api", "--help"]);
  for (
    const flag of [
      "--data",
      "--header",
      "--query-params",
      "--curl",
      "--file",
      "--output",
      "--query",
      "--raw",
      "--profile",
      "--insecure",
      "--ca-cert",
      "--timeout",
      "--retries",
    ]
  ) {
    assert(api.stdout.includes(flag), `${flag} is listed`);
  }
});

Deno.test("wrapHelp() continues a long description under its own column", () => {
  assertEquals(
    wrapHelp("  -q [--query]  filter the output with a JMESPath expression", 40),
    "  -q [--query]  filter the output with a\n                JMESPath expression",
  );
  assertEquals(wrapHelp("short", 40), "short");
});

Deno.test("unknown commands and flags suggest the closest; missing arguments say which", async () => {
  await using ctl = await inProcessCtl();
  const command = await ctl(["profle", "list"]);
  assertEquals(command.code, 2);
  assertEquals(
    command.stderr,
    "Error: Unknown command 'profle'\n  tip: Did you mean 'profile'?\n  tip: Run ctl --help to see the commands\n",
  );
  const flag = await ctl(["profile", "list", "--ouput", "json"]);
  assertEquals(flag.code, 2);
  assertMatch(flag.stderr, /^Error: Unknown flag --ouput\n {2}tip: Did you mean --output\?/);
  const missing = await ctl(["api", "cloud"]);
  assertMatch(missing.stderr, /^Error: Missing required argument 'method'/);
});

Deno.test("an unknown flag is called a flag wherever it is written, before or after a command or group", async () => {
  await using ctl = await inProcessCtl();
  for (
    const argv of [["--bogus"], ["--bogus", "cloud"], ["cloud", "--bogus"], ["--bogus", "cloud", "account", "get"]]
  ) {
    const r = await ctl(argv);
    assertEquals([r.code, r.stdout], [2, ""], argv.join(" "));
    assertMatch(
      r.stderr,
      /^Error: Unknown flag --bogus\n {2}tip: Run ctl( cloud)? --help to see the usage\n$/,
      argv.join(" "),
    );
  }
  const short = await ctl(["cloud", "-z"]);
  assertMatch(short.stderr, /^Error: Unknown flag -z\n/);
  const help = await ctl(["cloud", "--help"]);
  assertEquals([help.code, help.stderr], [0, ""]);
});

Deno.test("errors are JSON when JSON is asked for: -o json, -o=json, or -o auto with stdout piped", async () => {
  await using ctl = await inProcessCtl();
  const env = EMULATOR_ENV;
  for (const flags of [["-o", "json"], ["-o=json"], ["--output=json"], ["-o", "auto"]]) {
    const r = await ctl(["api", "enterprise", "get", "/v1/bdbs/99", ...flags], { env });
    assertEquals(r.code, 5);
    assertEquals(JSON.parse(r.stderr).error.code, "not_found", flags.join(" "));
  }
  const onTerminal = await ctl(["api", "enterprise", "get", "/v1/bdbs/99", "-o", "auto"], {
    env,
    tty: { stdout: true },
  });
  assertMatch(onTerminal.stderr, /^Error: Not found/);
  const byDefault = await ctl(["api", "enterprise", "get", "/v1/bdbs/99"], { env });
  assertMatch(byDefault.stderr, /^Error: Not found/);
});

Deno.test("global flags may come before the command", async () => {
  assertEquals(hoistGlobals(["-p", "prod", "-vv", "--raw", "api", "cloud", "get", "/x"]), [
    "api",
    "cloud",
    "get",
    "/x",
    "-p",
    "prod",
    "-vv",
    "--raw",
  ]);
  assertEquals(hoistGlobals(["-o=json", "api", "get", "--", "-x"]), ["api", "get", "-o=json", "--", "-x"]);
  await using ctl = await inProcessCtl();
  const r = await ctl(["-q", "[].name", "--raw", "api", "enterprise", "get", "/v1/bdbs"], { env: EMULATOR_ENV });
  assertEquals([r.code, r.stdout.split("\n").length], [0, 5]);
});

Deno.test("confirmation: asked on a terminal, --yes skips it, no terminal needs --yes, no cancels with 12", async () => {
  await using ctl = await inProcessCtl();
  const make = () => ctl(["profile", "set", "tmp", "--deployment", "cloud", "--api-key", "k"]);
  await make();
  const refused = await ctl(["profile", "remove", "tmp"], { tty: { stdin: true }, answers: [false] });
  assertEquals([refused.code, refused.stderr], [12, "Cancelled; nothing was changed\n"]);
  assertEquals(ctl.questions, ["Delete profile 'tmp'?"]);
  const piped = await ctl(["profile", "remove", "tmp"]);
  assertEquals(piped.code, 2);
  assertMatch(piped.stderr, /^Error: Delete profile 'tmp': confirm with --yes \(there is no terminal to ask on\)\n$/);
  const accepted = await ctl(["profile", "remove", "tmp"], { tty: { stdin: true }, answers: [true] });
  assertEquals(accepted.code, 0);
  await make();
  assertEquals((await ctl(["profile", "remove", "tmp", "-y"])).code, 0);
  assertEquals(ctl.questions.length, 2, "--yes asks nothing");
});

Deno.test("messages on a terminal's stderr wrap at its width under their label; piped or JSON they stay one line", async () => {
  await using ctl = await inProcessCtl();
  const message = "Error: 'ctl cloud' needs a command: account, payment-method, region, subscription, database, " +
    "task, acl, peering, private-service-connect, transit-gateway";
  const onTerminal = await ctl(["cloud"], { tty: { stderr: true }, columns: 60 });
  assertEquals(onTerminal.code, 2);
  const lines = onTerminal.stderr.trimEnd().split("\n");
  for (const line of lines) assert([...line].length <= 60, `wider than 60: '${line}'`);
  const at = lines.findIndex((line) => line.startsWith("Error: "));
  const wrapped = lines.slice(at);
  assert(wrapped.length > 2, onTerminal.stderr);
  for (const line of wrapped.slice(1)) assertMatch(line, /^ {7}\S/, "continued under the message");
  assertEquals(wrapped.map((line) => line.trim()).join(" "), message);

  const piped = await ctl(["cloud"]);
  assert(piped.stderr.endsWith(`${message}\n`), piped.stderr);
  const tips = await ctl(["profle", "list"], { tty: { stderr: true }, columns: 32 });
  assertEquals(
    tips.stderr,
    "Error: Unknown command 'profle'\n  tip: Did you mean 'profile'?\n  tip: Run ctl --help to see the\n       commands\n",
  );
  const json = await ctl(["cloud", "account", "get", "-o", "json"], {
    env: { STORE_CLOUD_API_URL: "http://cloud.test/v1" },
    tty: { stderr: true },
    columns: 40,
  });
  assertEquals(json.stderr.trimEnd().split("\n").length, 1, json.stderr);
  JSON.parse(json.stderr);
});
