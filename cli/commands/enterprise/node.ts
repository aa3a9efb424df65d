import { getNode, listNodes, nodeStats, removeNode, updateNode } from "../../../lib/enterprise/mod.ts";
import { StoreCtlError } from "../../../lib/errors/mod.ts";
import { type Flag, flag } from "../../framework/params.ts";
import { type Column, command, group } from "../../framework/spec.ts";
import { DATA_FLAG, one, requestBody, requireChanges, sizeColumn, STATS_COLUMNS, uidArg } from "./common.ts";

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
const UID = uidArg("uid", "the node's numeric id", LIST);

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
  summary: "remove a node from the cluster",
  description: "Remove a node from the cluster. Asks first on a terminal; without one, --yes is required.",
  args: [UID],
  confirm: ({ args: [uid] }) => `Remove node ${uid} from the cluster?`,
  examples: ["ctl enterprise node remove 3", "ctl enterprise node remove 3 --yes"],
  async run({ args: [uid] }, f) {
    await one(removeNode(await f.enterprise(), uid), LIST);
    f.ctx.stderr.write(`Removed node ${uid}\n`);
  },
});

const stats = command({
  summary: "show a node's statistics of the last interval",
  args: [UID],
  output: { columns: STATS_COLUMNS },
  examples: ["ctl enterprise node stats 1", "ctl enterprise node stats 1 -q cpu_user"],
  async run({ args: [uid] }, f) {
    return await one(nodeStats(await f.enterprise(), uid), LIST);
  },
});

/** `ctl enterprise node …`: the cluster's nodes. */
export default group("manage the cluster's nodes", { list, get, update, remove, stats });
