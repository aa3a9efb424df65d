import type { Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type ActionClock, runningRemoval, startNodeRemoval } from "./actions.ts";
import { nodeAlerts } from "./alerts.ts";
import { type EnterpriseData, nodeView } from "./fixture.ts";
import { nodeStats } from "./stats.ts";
import type { Json } from "../fixture.ts";
import type { Random } from "../random.ts";
import { isName } from "../requests.ts";

/** What the enterprise side's routes share: its state and the helpers that answer. */
export interface RouteKit {
  data(): EnterpriseData;
  readonly clock: ActionClock;
  readonly random: Random;
  now(): number;
  fail(c: Context, status: ContentfulStatusCode, message: string): Response;
  /** The record named by `:uid`, or the 404 answered. */
  find(c: Context, kind: string, records: Map<number, Json>): Json | Response;
  list(c: Context, items: readonly Json[]): Response;
  update(
    c: Context,
    record: Json,
    fields: readonly string[],
    check?: (body: Json) => string | undefined,
    apply?: (body: Json) => void,
    show?: (record: Json) => Json,
  ): Promise<Response>;
  /** Statistics keyed by uid, as the `stats/last` routes answer. */
  keyed(records: Json[], stats: (record: Json) => Json): Json;
  /** A route of the specification's table that the real API spells otherwise: 404 under `strict-routes`. */
  specAlias(handler: (c: Context) => Response | Promise<Response>): (c: Context) => Response | Promise<Response>;
}

const NODE_FIELDS = ["addr", "external_addr", "accept_servers", "rack_id"];

/**
 * Nodes and the actions that change them: `/v1/nodes`, their stats and alerts, removal as an
 * action (`POST /v1/nodes/{uid}/actions/remove`, `GET /v1/actions/{uid}`), and the specification's
 * `DELETE /v1/nodes/{uid}` and `/v1/nodes/{uid}/stats/last` as aliases.
 */
export function nodeRoutes(app: Hono, kit: RouteKit): void {
  // Nodes: the fixed paths before `/v1/nodes/:uid`.
  const nodes = () => [...kit.data().nodes.values()].map((n) => nodeView(n, kit.data()));
  app.get("/v1/nodes", (c) => kit.list(c, nodes()));
  app.get("/v1/nodes/alerts", (c) => c.json(kit.keyed(nodes(), () => nodeAlerts())));
  app.get("/v1/nodes/alerts/:uid", (c) => {
    const node = kit.find(c, "node", kit.data().nodes);
    return node instanceof Response ? node : c.json(nodeAlerts());
  });
  app.get("/v1/nodes/stats/last", (c) => c.json(kit.keyed(nodes(), () => nodeStats(kit.random, kit.now()))));
  app.get("/v1/nodes/stats/last/:uid", (c) => {
    const node = kit.find(c, "node", kit.data().nodes);
    return node instanceof Response ? node : c.json(kit.keyed([node], () => nodeStats(kit.random, kit.now())));
  });
  app.get("/v1/nodes/:uid{[^/]+}", (c) => {
    const node = kit.find(c, "node", kit.data().nodes);
    return node instanceof Response ? node : c.json(nodeView(node, kit.data()));
  });
  app.put("/v1/nodes/:uid{[^/]+}", (c) => {
    const node = kit.find(c, "node", kit.data().nodes);
    return node instanceof Response
      ? node
      : kit.update(c, node, NODE_FIELDS, nodeProblem, undefined, (r) => nodeView(r, kit.data()));
  });
  app.post("/v1/nodes/:uid/actions/:action", (c) => {
    const node = kit.find(c, "node", kit.data().nodes);
    if (node instanceof Response) return node;
    if (c.req.param("action") !== "remove") {
      return kit.fail(c, 400, `The emulator runs only the 'remove' node action, not '${c.req.param("action")}'`);
    }
    if (runningRemoval(kit.data(), node.uid)) return kit.fail(c, 409, `Node ${node.uid} is already being removed`);
    return c.json(startNodeRemoval(kit.data(), kit.clock, node.uid, kit.now()));
  });
  app.get("/v1/nodes/:uid/actions/:action", (c) => {
    const wanted = `${c.req.param("action")}_node`;
    const action = kit.data().actions.findLast((a) => a.name === wanted && a.node_uid === c.req.param("uid"));
    return action
      ? c.json(action)
      : kit.fail(c, 404, `No '${c.req.param("action")}' action of node '${c.req.param("uid")}'`);
  });
  // The spec's spellings.
  app.delete(
    "/v1/nodes/:uid{[^/]+}",
    kit.specAlias((c) => {
      const node = kit.find(c, "node", kit.data().nodes);
      if (node instanceof Response) return node;
      if (kit.data().nodes.size === 1) return kit.fail(c, 409, "Cannot remove the last node of the cluster");
      kit.data().nodes.delete(node.uid);
      return c.body(null, 200);
    }),
  );
  app.get(
    "/v1/nodes/:uid/stats/last",
    kit.specAlias((c) => {
      const node = kit.find(c, "node", kit.data().nodes);
      return node instanceof Response ? node : c.json(kit.keyed([node], () => nodeStats(kit.random, kit.now())));
    }),
  );

  // Actions.
  app.get("/v1/actions", (c) => c.json({ actions: kit.data().actions, "state-machines": kit.data().stateMachines }));
  app.get("/v1/actions/:uid", (c) => {
    const action = [...kit.data().actions, ...kit.data().stateMachines].find((a) =>
      a.action_uid === c.req.param("uid")
    );
    return action ? c.json(action) : kit.fail(c, 404, `action '${c.req.param("uid")}' does not exist`);
  });
}

/** What is wrong with a node update body, if anything. */
function nodeProblem(body: Json): string | undefined {
  if ("accept_servers" in body && typeof body.accept_servers !== "boolean") {
    return "Field 'accept_servers' must be a boolean";
  }
  for (const field of ["addr", "rack_id"]) {
    if (field in body && typeof body[field] !== "string") return `Field '${field}' must be a string`;
  }
  if ("external_addr" in body && !(Array.isArray(body.external_addr) && body.external_addr.every(isName))) {
    return "Field 'external_addr' must be an array of addresses";
  }
  return undefined;
}
