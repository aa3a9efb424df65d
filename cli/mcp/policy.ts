/**
 * What `ctl mcp serve` lets a client do. Read-only by default; `read-write` adds the tools that
 * change something, `full` those that delete (each call still needs `confirm: true`). The raw
 * API tools send GET only, unless the policy names other methods.
 *
 * @module
 */
import type { CommandTool } from "./tools.ts";
import { rawMethod } from "./tools.ts";

export const TIERS = ["read-only", "read-write", "full"] as const;
export type Tier = typeof TIERS[number];

/** A server's policy. */
export interface Policy {
  readonly tier: Tier;
  /** Methods besides GET the raw API tools may send (upper case). */
  readonly rawMethods: readonly string[];
}

export const DEFAULT_POLICY: Policy = { tier: "read-only", rawMethods: [] };

/** Whether `tool` is offered at all under `policy` (listed by `tools/list`). */
export function offers(policy: Policy, tool: CommandTool): boolean {
  if (tool.access === "read") return true;
  if (tool.access === "write") return policy.tier !== "read-only";
  return policy.tier === "full";
}

/** Why `policy` refuses this call, or undefined when it may run. */
export function refusal(policy: Policy, tool: CommandTool, args: Record<string, unknown>): string | undefined {
  if (!offers(policy, tool)) {
    const needs = tool.access === "write" ? "read-write" : "full";
    return `${tool.name} changes something and the policy is ${policy.tier}; start ctl mcp serve with ` +
      `--policy ${needs} to allow it`;
  }
  const method = rawMethod(tool, args);
  if (method !== undefined && method !== "GET" && !policy.rawMethods.includes(method)) {
    return `${tool.name} may send only GET under this policy; start ctl mcp serve with --allow-raw ${method} ` +
      "to let it send that method";
  }
  if (tool.access === "destructive" && args.confirm !== true) {
    return `${tool.name} deletes or removes something: call it again with confirm: true if that is meant`;
  }
  return undefined;
}
