import { getAction, listActions } from "../../../lib/enterprise/mod.ts";
import { StoreCtlError } from "../../../lib/errors/mod.ts";
import { WAIT_LIMIT_FLAGS } from "../../framework/waiting.ts";
import { type Arg, arg } from "../../framework/params.ts";
import { type Column, command, group } from "../../framework/spec.ts";
import { followAction } from "./action_wait.ts";
import { one } from "./common.ts";

/**
 * The columns of an action or a state machine. OBJECT is what it works on, as a state machine's
 * `object_name` says it (`bdb:1`); an action names only its node (`node_uid`), shown the same way.
 */
export const ACTION_COLUMNS: readonly Column[] = [
  { header: "ACTION UID", value: "action_uid" },
  { header: "NAME", value: "name" },
  { header: "STATUS", value: "status" },
  {
    header: "OBJECT",
    value: (row) => row.object_name ?? (row.node_uid === undefined ? undefined : `node:${row.node_uid}`),
  },
  { header: "PROGRESS", value: (row) => (row.progress === undefined ? undefined : `${Number(row.progress)}%`) },
];

const LIST = "ctl enterprise action list";

/** An action uid, checked before any request. */
const ACTION_UID: Arg<string> = {
  ...arg.string("action_uid", "the action's uid, as node remove or action list shows it"),
  parse: (input) => {
    if (!/^[0-9A-Za-z][0-9A-Za-z-]{0,63}$/.test(input)) {
      throw new StoreCtlError(
        "usage",
        `must be an action uid such as a7c3e1f0-0000-4000-8000-000000000001; got '${input}'`,
        {
          tips: [`See the actions with: ${LIST}`],
        },
      );
    }
    return input;
  },
};

const list = command({
  summary: "list the cluster's actions and state machines",
  output: {
    rows: (data) => {
      const body = (data ?? {}) as { actions?: unknown[]; "state-machines"?: unknown[] };
      return [...(body.actions ?? []), ...(body["state-machines"] ?? [])];
    },
    columns: ACTION_COLUMNS,
    empty: "No actions",
  },
  examples: [LIST, "ctl enterprise action list -q 'actions[?status==`running`]'"],
  async run(_input, f) {
    return await listActions(await f.enterprise());
  },
});

const get = command({
  summary: "show one action",
  args: [ACTION_UID],
  output: { columns: ACTION_COLUMNS },
  examples: ["ctl enterprise action get a7c3e1f0-0000-4000-8000-000000000001"],
  async run({ args: [uid] }, f) {
    return await one(getAction(await f.enterprise(), uid), LIST);
  },
});

const wait = command({
  summary: "wait for an action to finish",
  description: `Wait for an action (e.g. a node removal) to finish, with its progress on a terminal. A failed
action is exit 8; --wait-timeout gives up waiting (exit 11) and Ctrl+C stops waiting (exit 130):
the action goes on either way.`,
  args: [ACTION_UID],
  flags: WAIT_LIMIT_FLAGS,
  output: { columns: ACTION_COLUMNS },
  examples: ["ctl enterprise action wait a7c3e1f0-0000-4000-8000-000000000001 --wait-timeout 1800"],
  async run({ args: [uid], flags }, f) {
    const client = await f.enterprise();
    return await one(
      followAction(f, client, { actionUid: uid }, { doing: `Action ${uid}`, subject: `action ${uid}` }, flags),
      LIST,
    );
  },
});

/** `ctl enterprise action …`: long-running cluster operations. */
export default group("follow long-running cluster operations (node removals…)", { list, get, wait });
