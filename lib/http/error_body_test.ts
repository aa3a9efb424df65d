import { assertEquals } from "../../testing/assert.ts";
import { serverMessage } from "./error_body.ts";

const NGINX_401 = `<html>
<head><title>401 Authorization Required</title></head>
<body>
<center><h1>401 Authorization Required</h1></center>
<hr><center>nginx</center>
</body>
</html>
`;

Deno.test("serverMessage() reads the message of each API's JSON error body", () => {
  const cases: [unknown, string | undefined][] = [
    [
      { timestamp: "t", status: 400, error: "Bad Request", message: "Field 'name' is required", path: "/v1/x" },
      "Field 'name' is required",
    ],
    [{ error_code: "db_not_exist", message: "Database 9 does not exist" }, "Database 9 does not exist"],
    [{ error_code: "db_not_exist", description: "Database 9 does not exist" }, "Database 9 does not exist"],
    [{ error_code: "bad_request", error_details: { message: "memory_size is too small" } }, "memory_size is too small"],
    [{ error_code: "unsupported_resource", message: "" }, "unsupported_resource"],
    [{ error_code: "unsupported_resource" }, "unsupported_resource"],
    [{ response: { error: { type: "X", status: "400 BAD_REQUEST", description: "bad" } } }, undefined],
    [
      { error: { type: "SUBSCRIPTION_NOT_FOUND", description: "Subscription 9 not found" } },
      "Subscription 9 not found",
    ],
    [{ type: "about:blank", title: "Not Found", detail: "task 9" }, "task 9"],
    [{}, undefined],
  ];
  for (const [body, expected] of cases) {
    assertEquals(serverMessage(JSON.stringify(body)), expected, JSON.stringify(body));
  }
});

Deno.test("serverMessage() makes one readable line of an HTML page or plain text", () => {
  assertEquals(serverMessage(NGINX_401), "401 Authorization Required");
  assertEquals(
    serverMessage("<html><body><h1>Bad gateway</h1>\n<p>upstream   said\nno</p></body></html>"),
    "Bad gateway upstream said no",
  );
  assertEquals(serverMessage("Too Many Requests\n"), "Too Many Requests");
  assertEquals(serverMessage("line one\n\n  line two  "), "line one line two");
  assertEquals(serverMessage("x".repeat(500))?.length, 201);
  assertEquals(serverMessage("  \n "), undefined);
});
