/**
 * The enterprise (cluster) management API: a client with HTTP Basic and the `/v1` path rule,
 * one file per resource.
 *
 * @example
 * ```ts
 * import { createEnterpriseClient } from "./mod.ts";
 * import { fetchTransport } from "../http/mod.ts";
 * const client = createEnterpriseClient(
 *   { deployment: "enterprise", url: "https://cluster:9443", username: "a", password: "b", insecure: false, sources: { url: "", username: "", password: "", insecure: "", caCert: "" } },
 *   { transport: fetchTransport(fetch), timeoutMs: 30_000 },
 * );
 * const bdbs = await client.get<{ name: string }[]>("/v1/bdbs");
 * ```
 *
 * @module
 */
export { basicAuth, createEnterpriseClient, type EnterpriseClient, enterprisePath } from "./client.ts";
export { type Bdb, createBdb, deleteBdb, getBdb, listBdbs, updateBdb } from "./bdbs.ts";
