import type { EnterpriseData } from "./fixture.ts";
import type { Json } from "../fixture.ts";

/** When each running action started, and what it does when its time is up. */
export interface ActionClock {
  readonly started: Map<string, number>;
}

/**
 * Starts removing node `uid` (`POST /v1/nodes/{uid}/actions/remove`): an action as `GET
 * /v1/actions/{action_uid}` shows it (redis-enterprise-rs tests/fixtures/actions_list.json:
 * `progress` and `node_uid` are strings there), queued at first.
 */
export function startNodeRemoval(data: EnterpriseData, clock: ActionClock, uid: number, now: number): Json {
  const n = data.actions.length + 1;
  const id = `a7c3e1f0-0000-4000-8000-${String(n).padStart(12, "0")}`;
  const action = {
    action_uid: id,
    creation_time: String(Math.floor(now / 1000)),
    name: "remove_node",
    node_uid: String(uid),
    progress: "0",
    status: "queued",
    task_id: id,
  };
  data.actions.push(action);
  clock.started.set(id, now);
  return action;
}

/** The unfinished removal of node `uid`, if one runs (a second one is a conflict). */
export function runningRemoval(data: EnterpriseData, uid: number): Json | undefined {
  return data.actions.find((a) =>
    a.name === "remove_node" && a.node_uid === String(uid) && !["completed", "failed", "cancelled"].includes(a.status)
  );
}

/**
 * Moves actions on with time: queued for the first tenth of `delayMs`, then running with a
 * growing `progress`, then completed — the node is gone — or, when it was the last node,
 * failed with `error_code` and `error_message` (the reference's action object).
 */
export function settleActions(data: EnterpriseData, clock: ActionClock, now: number, delayMs: number): void {
  for (const action of data.actions) {
    const started = clock.started.get(action.action_uid);
    if (started === undefined) continue;
    const elapsed = now - started;
    if (elapsed < delayMs) {
      const running = elapsed >= delayMs / 10;
      action.status = running ? "running" : "queued";
      action.progress = String(running ? Math.floor((elapsed / delayMs) * 100) : 0);
      continue;
    }
    clock.started.delete(action.action_uid);
    const uid = Number(action.node_uid);
    if (data.nodes.size <= 1) {
      Object.assign(action, {
        status: "failed",
        error_code: "insufficient_resources",
        error_message:
          `Cannot remove node ${uid}: it is the last node of the cluster, no node is left to take its shards`,
      });
      continue;
    }
    data.nodes.delete(uid);
    Object.assign(action, { status: "completed", progress: "100" });
  }
}
