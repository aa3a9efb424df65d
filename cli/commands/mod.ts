/**
 * The `ctl` command tree. Each noun's module loads only when a command line reaches it, so
 * `ctl --help` and every command pay only for what they use.
 *
 * @module
 */
import { group, lazy } from "../framework/spec.ts";

export const ROOT = group(
  "command-line client for the cloud and enterprise management APIs",
  {
    api: lazy("send a raw request to the cloud or enterprise API", () => import("./api.ts")),
    cloud: lazy("manage resources of the cloud API", () => import("./cloud/mod.ts")),
    enterprise: lazy("manage an enterprise cluster", () => import("./enterprise/mod.ts")),
    mcp: lazy("serve ctl's commands as tools to AI agents (Model Context Protocol)", () => import("./mcp.ts")),
    "files-key": lazy("manage the upload key of support packages", () => import("./files_key.ts")),

    profile: lazy("manage stored profiles (credentials and endpoints)", () => import("./profile.ts")),
    completions: lazy("print a shell completion script", () => import("./completions.ts")),
  },
  `Command-line client for the cloud and enterprise management APIs.

Run 'ctl help <command>' or 'ctl <command> --help' for a command's flags and examples.

Examples:
  ctl cloud database create --subscription 156400 --name cache --dataset-size-gb 1 --wait
  ctl profile set lab --deployment enterprise --url https://cluster:9443 --username admin@example.com --password '…'
  ctl api enterprise get /v1/bdbs -q '[].name'
  ctl api cloud get /subscriptions -o yaml`,
);
