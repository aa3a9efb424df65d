import { listRoles } from "../../../lib/enterprise/mod.ts";
import { command, group } from "../../framework/spec.ts";

const list = command({
  summary: "list the management roles",
  output: {
    columns: [
      { header: "UID", value: "uid" },
      { header: "NAME", value: "name" },
      { header: "MANAGEMENT", value: "management" },
    ],
    empty: "No roles",
  },
  examples: ["ctl enterprise role list"],
  async run(_input, f) {
    return await listRoles(await f.enterprise());
  },
});

/** `ctl enterprise role list`. */
export default group("list the management roles", { list });
