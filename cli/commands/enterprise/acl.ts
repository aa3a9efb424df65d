import { listRedisAcls } from "../../../lib/enterprise/mod.ts";
import { command, group } from "../../framework/spec.ts";

const list = command({
  summary: "list the Redis ACLs",
  output: {
    columns: [
      { header: "UID", value: "uid" },
      { header: "NAME", value: "name" },
      { header: "ACL", value: "acl" },
    ],
    empty: "No ACLs",
  },
  examples: ["ctl enterprise acl list", "ctl enterprise acl list -q '[].name' --raw"],
  async run(_input, f) {
    return await listRedisAcls(await f.enterprise());
  },
});

/** `ctl enterprise acl list`: the cluster's Redis ACLs. */
export default group("list the Redis ACLs", { list });
