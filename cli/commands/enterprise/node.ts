import { type ActionRef, getNode, listNodes, nodeStats, removeNode, updateNode } from "../../../lib/enterprise/mod.ts";
import { StoreCtlError } from "../../../lib/errors/mod.ts";
import { WAIT_FLAGS } from "../../framework/waiting.ts";
import { type Flag, flag } from "../../framework/params.ts";
import { type Column, command, group } from "../../framework/spec.ts";
import { ACTION_COLUMNS } from "./action.ts";
import { followAction, followCommand } from "./action_wait.ts";
import { HOST_STATS_COLUMNS, one, requestBody, requireChanges, sizeColumn, uidArg } from "./common.ts";
import { DATA_FLAG } from "../input.ts";

const COLUMNS: readonly Column[] = [
  { header: "UID", value: "uid" },
  { header: "ADDRESS", value: "addr" },
  { header: "STATUS", value: "status" },
  { header: "VERSION", value: "software_version" },
  { header: "SHARDS", value: "shard_count" },
  sizeColumn("MEMORY", "total_memory"),
  { header: "CORES", value: "cores" },
  { header: "RACK", value: "rack_id" },
];

const LIST = "ctl enterprise node list";
const UID = uidArg("node", "the node's numeric id", LIST);

const list = command({
  summary: "list the cluster's nodes",
  output: { columns: COLUMNS, empty: "No nodes" },
  examples: ["ctl enterprise node list", "ctl enterprise node list -q '[?status!=`active`].uid'"],
  async run(_input, f) {
    return await listNodes(await f.enterprise());
  },
});

const get = command({
  summary: "show one node",
  args: [UID],
  output: { columns: COLUMNS },
  examples: ["ctl enterprise node get 1"],
  async run({ args: [uid] }, f) {
    return await one(getNode(await f.enterprise(), uid), LIST);
  },
});

/** `true`/`false` for a flag that sets a boolean field. */
const BOOLEAN = (input: string) => {
  if (input === "true" || input === "false") return input === "true";
  throw new StoreCtlError("usage", `must be true or false; got '${input}'`);
};

const update = command({
  summary: "change a node's settings",
  args: [UID],
  flags: {
    acceptServers: {
      ...flag.string("whether the node takes new shards", { placeholder: "true|false" }),
      parse: BOOLEAN,
      values: ["true", "false"],
    } as Flag<boolean | undefined>,
    rackId: flag.string("the node's rack", { placeholder: "rack" }),
    addr: flag.string("the node's internal address", { placeholder: "ip" }),
    data: DATA_FLAG,
  },
  output: { columns: COLUMNS },
  examples: ["ctl enterprise node update 2 --accept-servers false", "ctl enterprise node update 2 --rack-id rack-b"],
  async run({ args: [uid], flags }, f) {
    const body = await requestBody(f, flags.data, {
      accept_servers: flags.acceptServers,
      rack_id: flags.rackId,
      addr: flags.addr,
    });
    requireChanges(body, "--accept-servers, --rack-id, --addr");
    return await one(updateNode(await f.enterprise(), uid, body), LIST);
  },
});

const remove = command({
  summary: "remove a node from the cluster (its shards and endpoints move first)",
  description: `Remove a node from the cluster: POST /v1/nodes/{uid}/actions/remove starts an action that
moves the node's shards and endpoints to the other nodes, then removes it. Prints the action
and how to follow it; with --wait, follows it (GET /v1/actions/{action_uid}) until the node is
gone, with its progress on a terminal. --wait-timeout gives up waiting (exit 11), Ctrl+C stops
waiting (exit 130): the removal goes on either way. Asks first on a terminal; without one,
--yes is required.`,
  args: [UID],
  flags: WAIT_FLAGS,
  confirm: ({ args: [uid] }) => `Remove node ${uid} from the cluster?`,
  output: { columns: ACTION_COLUMNS },
  examples: [
    "ctl enterprise node remove 3",
    "ctl enterprise node remove 3 --yes --wait",
    "ctl enterprise node remove 3 --yes --wait --wait-timeout 1800",
  ],
  async run({ args: [uid], flags }, f) {
    const client = await f.enterprise();
    const started = await one(removeNode(client, uid), LIST);
    const ref: ActionRef = typeof started.action_uid === "string"
      ? { actionUid: started.action_uid }
      : { path: `/v1/nodes/${uid}/actions/remove` };
    if (!flags.wait) {
      const id = "actionUid" in ref ? `action ${ref.actionUid}` : "the action";
      f.ctx.stderr.write(`Removing node ${uid}: ${id} is ${started.status}; follow it with: ${followCommand(ref)}\n`);
      return started;
    }
    const wording = { doing: `Removing node ${uid}`, subject: `the removal of node ${uid}` };
    try {
      const done = await followAction(f, client, ref, wording, flags);
      f.ctx.stderr.write(`Removed node ${uid}\n`);
      return done;
    } catch (error) {
      // A cluster may drop a finished action's status (404): the node being gone tells the end.
      if (!(error instanceof StoreCtlError && error.code === "not_found")) throw error;
      const gone = await getNode(client, uid).then(
        () => false,
        (e) => e instanceof StoreCtlError && e.code === "not_found",
      );
      if (!gone) throw error;
      f.ctx.stderr.write(`Removed node ${uid} (the cluster no longer shows the action)\n`);
      return undefined;
    }
  },
});

const stats = command({
  summary: "show a node's statistics of the last interval",
  args: [UID],
  description: `Show a node's statistics of the last interval, from GET /v1/nodes/stats/last/{uid} (on a
404, the older spelling /v1/nodes/{uid}/stats/last is tried once); -o json shows every metric.`,
  output: { columns: HOST_STATS_COLUMNS },
  examples: ["ctl enterprise node stats 1", "ctl enterprise node stats 1 -q cpu_user"],
  async run({ args: [uid] }, f) {
    return await one(nodeStats(await f.enterprise(), uid), LIST);
  },
});

/** `ctl enterprise node …`: the cluster's nodes. */
export default group("manage the cluster's nodes", { list, get, update, remove, stats });
