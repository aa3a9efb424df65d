import { assertEquals } from "../../testing/assert.ts";
import { OPEN_ROUTES, ROUTE_SCOPES } from "../../testing/auth_tokens.ts";

import { grants, OPEN_PATHS, routeScopes, SCOPES } from "./scopes.ts";
import { testApp } from "../../testing/service.ts";

const app = testApp().app;
const served = app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path}`);
const open = (route: string) => OPEN_PATHS.some((p) => p.test(route.split(" ")[1]));

Deno.test("every route the app serves, but the open ones, declares the scope it needs — and the table agrees", () => {
  const table = routeScopes(app.openAPIRegistry.definitions as never);
  const needs = Object.fromEntries(served.filter((r) => !open(r)).map((r) => [r, table.get(r)]));
  const expected = Object.fromEntries([
    ...ROUTE_SCOPES.map(([method, path, scope]) => [`${method} ${path}`, scope]),
    ...OPEN_ROUTES.filter((r) => !open(r)).map((r) => [r, null]),
  ]);
  // A new route without `security` shows up here as needing undefined (not registered) or admin.
  assertEquals(needs, expected);
  for (const route of served.filter(open)) assertEquals(/^GET \/(openapi\.json|docs|console)/.test(route), true, route);
});

Deno.test("a registered route without a security declaration needs admin: forgetting it closes the route", () => {
  const table = routeScopes([
    { type: "route", route: { method: "get", path: "/new/{id}" } },
    { type: "route", route: { method: "post", path: "/open", security: [] } },
    { type: "route", route: { method: "get", path: "/basic", security: [{ basic: [] }] } },
  ]);
  assertEquals([...table], [["GET /new/:id", "admin"], ["POST /open", null], ["GET /basic", null]]);
  const either = routeScopes([{
    type: "route",
    route: { method: "post", path: "/rpc", security: [{ bearer: ["tasks:read"] }, { bearer: ["tasks:write"] }] },
  }]);
  assertEquals([...either], [["POST /rpc", ["tasks:read", "tasks:write"]]]);
});

Deno.test("admin implies every scope; no other scope implies another", () => {
  for (const scope of SCOPES) {
    assertEquals(grants(["admin"], scope), true);
    for (const other of SCOPES) assertEquals(grants([other], scope), other === scope || other === "admin");
  }
});

Deno.test("/openapi.json declares the bearer scheme and each operation's scope, 401 and 403 among its answers", async () => {
  const spec = await (await app.request("/openapi.json")).json();
  assertEquals(spec.components.securitySchemes.bearer.type, "http");
  assertEquals(spec.components.securitySchemes.bearer.scheme, "bearer");
  for (const [method, path, scope] of ROUTE_SCOPES) {
    const operation = spec.paths[path.replace(/\/:(\w+)/g, "/{$1}")][method.toLowerCase()];
    const anyOf = typeof scope === "string" ? [scope] : scope;
    assertEquals(operation.security, anyOf.map((s) => ({ bearer: [s] })), `${method} ${path}`);
    assertEquals(["401", "403"].every((s) => s in operation.responses), true, `${method} ${path}`);
  }
  assertEquals(spec.paths["/"].get.security, []);
  assertEquals(spec.paths["/health"].get.security, []);
  assertEquals(spec.paths["/api/RateLimited/sliding"].get.security, [{ basic: [] }]);
});
