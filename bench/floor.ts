/**
 * The floor of `ctl api enterprise get /v1/bdbs -q '[].name'`: the least a Deno script must do
 * (fetch, parse, JMESPath, print). Reads STORE_ENTERPRISE_URL, _USER and _PASSWORD.
 *
 * @module
 */
import { search } from "@jmespath-community/jmespath";

const auth = btoa(`${Deno.env.get("STORE_ENTERPRISE_USER")}:${Deno.env.get("STORE_ENTERPRISE_PASSWORD")}`);
const response = await fetch(`${Deno.env.get("STORE_ENTERPRISE_URL")}/v1/bdbs`, {
  headers: { authorization: `Basic ${auth}`, accept: "application/json" },
});
console.log(JSON.stringify(search(await response.json(), "[].name"), null, 2));
