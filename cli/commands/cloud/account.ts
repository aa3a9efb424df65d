import { getAccount } from "../../../lib/cloud/mod.ts";
import { command, group } from "../../framework/spec.ts";

const get = command({
  summary: "show the account the API key belongs to",
  output: {
    columns: [
      { header: "ID", value: "id" },
      { header: "NAME", value: "name" },
      { header: "MARKETPLACE", value: "marketplaceStatus" },
      { header: "API KEY", value: "key.name" },
      { header: "CREATED", value: "createdTimestamp" },
    ],
  },
  examples: ["ctl cloud account get", "ctl cloud account get -q id --raw"],
  async run(_input, f) {
    return await getAccount(await f.cloud());
  },
});

/** `ctl cloud account …`. */
export default group("show the cloud account", { get });
