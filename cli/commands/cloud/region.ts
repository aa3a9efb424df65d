import { listRegions } from "../../../lib/cloud/mod.ts";
import { group } from "../../framework/spec.ts";
import { listCommand } from "./common.ts";

const list = listCommand({
  summary: "list the regions subscriptions can use",
  // A real region is its name and provider, nothing more.
  columns: [
    { header: "NAME", value: "name" },
    { header: "PROVIDER", value: "provider" },
  ],
  empty: "No regions",
  examples: ["ctl cloud region list", "ctl cloud region list -q \"[?provider=='GCP'].name\""],
  list: listRegions,
});

/** `ctl cloud region …`. */
export default group("list the cloud regions", { list });
