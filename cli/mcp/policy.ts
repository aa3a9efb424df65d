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
  /** Tools offered whatever the tier. */
  readonly allow?: readonly string[];
  /** Tools never offered, whatever the tier or `allow`. */
  readonly deny?: readonly string[];
}

export const DEFAULT_POLICY: Policy = { tier: "read-only", rawMethods: [] };

/** Whether `tool` is offered at all under `policy` (listed by `tools/list`). */
export function offers(policy: Policy, tool: CommandTool): boolean {
  if (policy.deny?.includes(tool.name)) return false;
  if (policy.allow?.includes(tool.name)) return true;
  if (tool.access === "read") return true;
  if (tool.access === "write") return policy.tier !== "read-only";
  return policy.tier === "full";
}

/** Why `policy` refuses this call, or undefined when it may run. */
export function refusal(policy: Policy, tool: CommandTool, args: Record<string, unknown>): string | undefined {
  if (!offers(policy, tool)) {
    if (policy.deny?.includes(tool.name)) return `${tool.name} is denied by the policy file`;
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

/** A policy file's keys (TOML): `tier`, `allow`, `deny`, `raw_methods`. */
const FILE_KEYS = ["tier", "allow", "deny", "raw_methods"];

/**
 * The policy a TOML file describes, checked against the tools there are; throws naming the file,
 * the key and what is wrong (an unknown tool in `allow` or `deny` is a mistake, not a no-op).
 *
 * @example
 * ```ts ignore
 * readPolicy('tier = "read-write"\ndeny = ["cloud_subscription_create"]', "policy.toml", tools);
 * ```
 */
export async function readPolicy(text: string, path: string, tools: readonly CommandTool[]): Promise<Policy> {
  const { parse } = await import("smol-toml");
  const wrong = (what: string) => new Error(`${path}: ${what}`);
  let doc: Record<string, unknown>;
  try {
    doc = parse(text);
  } catch (error) {
    throw wrong(`not TOML (${(error as Error).message.split("\n")[0]})`);
  }
  const unknownKeys = Object.keys(doc).filter((key) => !FILE_KEYS.includes(key));
  if (unknownKeys.length > 0) {
    throw wrong(`unknown key ${unknownKeys.join(", ")}; the keys are ${FILE_KEYS.join(", ")}`);
  }
  const tier = doc.tier ?? DEFAULT_POLICY.tier;
  if (!TIERS.includes(tier as Tier)) throw wrong(`tier must be ${TIERS.join(", ")}; got ${JSON.stringify(tier)}`);
  const names = new Set(tools.map((tool) => tool.name));
  const list = (key: string, check: (item: string) => string | undefined) => {
    const value = doc[key] ?? [];
    if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
      throw wrong(`${key} must be a list of strings`);
    }
    const bad = value.map(check).filter(Boolean);
    if (bad.length > 0) throw wrong(`${key}: ${bad.join("; ")}`);
    return value as string[];
  };
  const tool = (name: string) => names.has(name) ? undefined : `no tool ${name} (ctl mcp serve lists them on start)`;
  const rawMethods = list(
    "raw_methods",
    (m) => RAW_METHODS.includes(m.toUpperCase()) ? undefined : `not ${RAW_METHODS}: ${m}`,
  )
    .map((m) => m.toUpperCase());
  return { tier: tier as Tier, rawMethods, allow: list("allow", tool), deny: list("deny", tool) };
}

/** The methods besides GET a policy may let the raw tools send. */
export const RAW_METHODS = ["POST", "PUT", "PATCH", "DELETE"];
