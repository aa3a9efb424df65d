import type { PackageTarget } from "../../../../lib/enterprise/mod.ts";
import { StoreCtlError } from "../../../../lib/errors/mod.ts";
import { DEFAULT_LOG_LINES } from "../../../../lib/support_package/mod.ts";
import type { Factory } from "../../../factory.ts";
import { type Arg, arg, flag } from "../../../framework/params.ts";
import { command, group, type OutputTarget } from "../../../framework/spec.ts";
import { uidArg } from "../common.ts";
import type { GenerateOptions } from "./common.ts";
import { generatePackage } from "./generate.ts";
import { optimizeFile } from "./optimize.ts";
import { describe, JOB_COLUMNS, jobs } from "./jobs.ts";

const LOG_LINES = flag.number("lines kept per log file when optimizing", {
  min: 1,
  max: 10_000_000,
  integer: true,
  default: DEFAULT_LOG_LINES,
  placeholder: "n",
});
/** A cluster builds a package before it sends the first byte; minutes on a large one. */
const FIRST_BYTE_TIMEOUT_S = 300;
const YES = flag.boolean("answer yes to the pre-flight questions (overwrite, low disk space)", { alias: "y" });
const SKIP_CHECKS = flag.boolean("skip the pre-flight checks (writable directory, existing file, free space)");

const GENERATE_FLAGS = {
  skipChecks: SKIP_CHECKS,
  useNewApi: flag.boolean("use the new endpoints (server 7.4 and later)"),
  useOldApi: flag.boolean("use the old /v1/debuginfo endpoints even on 7.4 and later"),
  optimize: flag.boolean("shrink the package while it downloads (log tails, no nested archives, no duplicates)"),
  optimizeVerbose: flag.boolean("with --optimize: list each file cut, removed or linked on stderr"),
  logLines: LOG_LINES,
  upload: flag.boolean("upload the package to the file-transfer service (key: ctl files-key)"),
  noSave: flag.boolean("with --upload: keep no local copy, not even when the upload fails"),
  wait: flag.boolean("wait for the package (the default)"),
  noWait: flag.boolean("start in the background and return at once, printing a task id for status"),
  jobId: flag.string("the job a background run reports to (set by --no-wait)", { hidden: true, placeholder: "id" }),
  waitTimeout: flag.number("give up after this many seconds, the whole operation", {
    min: 1,
    max: 86_400,
    integer: true,
    default: 600,
    placeholder: "seconds",
  }),
  firstByteTimeout: flag.number(
    "how long the cluster may take to build the package and start sending it, in seconds (at least --timeout)",
    { min: 1, max: 86_400, default: FIRST_BYTE_TIMEOUT_S, placeholder: "seconds" },
  ),
  yes: YES,
};

type GenerateFlags = { readonly [K in keyof typeof GENERATE_FLAGS]: unknown };

const DESCRIPTION = `Download a diagnostic support package (tar.gz) from the cluster into a file: by default
support-package-<type>[-<uid>]-<YYYYMMDDTHHMMSS>.tar.gz (UTC) here; -o/--file <path> chooses the file
(a directory gets the default name inside it). The download goes to a .partial file beside the
target, renamed when complete: a failure or Ctrl+C leaves no half file and an existing file
untouched.

Pre-flight checks (unless --skip-checks), before any request: the directory must take a new file;
an existing file is replaced only if you agree; under 1 GiB free asks whether to go on. Without a
terminal, --yes answers the questions. Routes: the old /v1/debuginfo ones unless the cluster runs
7.4 or later (then the new ones), --use-new-api or --use-old-api force a family, and a 404 tries
the other family once. With -o json (or when piped) the result object is printed on stdout.`;

function options(flags: GenerateFlags): GenerateOptions {
  const f = flags as unknown as GenerateOptions & { optimizeVerbose: boolean; wait: boolean };
  if (f.useNewApi && f.useOldApi) {
    throw new StoreCtlError("usage", "Give --use-new-api or --use-old-api, not both");
  }
  if (f.wait && f.noWait) throw new StoreCtlError("usage", "Give --wait or --no-wait, not both");
  if (f.noSave && !f.upload) {
    throw new StoreCtlError("usage", "--no-save needs --upload: without it the package would go nowhere");
  }
  return { ...f, optimize: f.optimize || f.optimizeVerbose };
}

function generator(
  summary: string,
  args: readonly Arg<unknown>[],
  target: (args: readonly unknown[]) => PackageTarget,
  examples: string[],
) {
  return command({
    summary,
    description: DESCRIPTION,
    args,
    flags: GENERATE_FLAGS,
    output: {
      writesFile: true,
      fileBrief: "the package file, also -o <path> (default: support-package-<type>-<UTC time>.tar.gz here)",
    },
    examples,
    async run({ args, flags, output }: { args: readonly unknown[]; flags: GenerateFlags; output: OutputTarget }, f) {
      await generatePackage(f as Factory, target(args), options(flags), output);
    },
  });
}

const cluster = generator("download a support package of the whole cluster", [], () => ({ kind: "cluster" }), [
  "ctl enterprise support-package cluster",
  "ctl enterprise support-package cluster --optimize -o cluster.tar.gz",
  "ctl enterprise support-package cluster -o json --yes",
]);

const database = generator(
  "download a support package of one database (active-active too)",
  [uidArg("database", "the database's numeric id", "ctl enterprise database list")],
  ([uid]) => ({ kind: "database", uid: uid as number }),
  ["ctl enterprise support-package database 1", "ctl enterprise support-package database 1 --use-new-api"],
);

const node = generator(
  "download a support package of one node, or of all nodes without a uid",
  [{
    ...uidArg("node", "the node's numeric id (all nodes when left out)", "ctl enterprise node list"),
    optional: true,
  }],
  ([uid]) => (uid === undefined ? { kind: "nodes" } : { kind: "node", uid: uid as number }),
  ["ctl enterprise support-package node 2", "ctl enterprise support-package node"],
);

const optimize = command({
  summary: "shrink a support package already on disk",
  description: `Shrink a support package already on disk, as --optimize does while downloading: logs keep
their last --log-lines lines, nested .gz/.tgz files and rotated copies of present logs go,
byte-identical small files become hard links, unsafe entries are rejected: absolute or '..'
names, paths through a symbolic link of the package, names over 4096 bytes, GNU sparse records
(see docs/ctl.md for the exact rules). Writes <name>-optimized.tar.gz beside it unless -o/--file
says where. A damaged package (cut short, corrupt, empty, not gzip) is exit 14, and writes
nothing.`,
  args: [arg.string("file", "the package (tar.gz)")],
  flags: {
    logLines: LOG_LINES,
    optimizeVerbose: flag.boolean("list each file cut, removed or linked on stderr"),
    skipChecks: SKIP_CHECKS,
    yes: YES,
  },
  output: { writesFile: true, fileBrief: "the optimized package, also -o <path> (default: <name>-optimized.tar.gz)" },
  examples: [
    "ctl enterprise support-package optimize support-package-cluster-20260131T080509.tar.gz",
    "ctl enterprise support-package optimize pkg.tar.gz --log-lines 200 --optimize-verbose -o small.tar.gz",
  ],
  async run({ args: [file], flags, output }, f) {
    await optimizeFile(f, file, {
      logLines: flags.logLines,
      verbose: flags.optimizeVerbose,
      skipChecks: flags.skipChecks,
      yes: flags.yes,
    }, output);
  },
});

const status = command({
  summary: "show a package generation's status, progress and message",
  description: `Show the status (in_progress, completed, failed), progress (percent, when the size is
known) and message of a package generation started on this machine, e.g. with --no-wait. The
jobs live in $XDG_STATE_HOME/storectl/support-packages.json (~/.local/state by default).`,
  args: [arg.string("task_id", "the id --no-wait printed (see them with ctl enterprise support-package list)")],
  output: { columns: JOB_COLUMNS },
  examples: ["ctl enterprise support-package status sp-20260131T080509-3fa1"],
  async run({ args: [id] }, f) {
    const job = await jobs(f).get(id);
    if (!job) {
      throw new StoreCtlError("not_found", `No support-package task '${id}' on this machine`, {
        tips: ["See the known ones with: ctl enterprise support-package list"],
      });
    }
    return describe(job, f.ctx.now());
  },
});

const list = command({
  summary: "list the packages and background jobs this machine knows",
  description: `List the support packages generated on this machine and their background jobs, newest
first (most cluster versions store no packages, so this list is local).`,
  output: { columns: JOB_COLUMNS, empty: "No support packages generated on this machine yet" },
  examples: [
    "ctl enterprise support-package list",
    "ctl enterprise support-package list -q '[?status==`completed`].file_path'",
  ],
  async run(_input, f) {
    const now = f.ctx.now();
    return (await jobs(f).list()).map((job) => describe(job, now));
  },
});

/** `ctl enterprise support-package …`: diagnostic packages of a cluster, a database or nodes. */
export default group("download and shrink diagnostic support packages", {
  cluster,
  database,
  node,
  status,
  list,
  optimize,
});
