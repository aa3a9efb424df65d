import { assertEquals } from "../testing/assert.ts";
import { docFields, docType, fieldsOf, widen } from "./enterprise_fields.ts";

Deno.test("fieldsOf() keeps names and JSON types; required are the fields every sample has", () => {
  const set = fieldsOf([{ uid: 1, addr: ["a"], name: "x" }, { uid: "2", addr: [] }], "here");
  assertEquals(set.fields, { addr: ["array"], name: ["string"], uid: ["number", "string"] });
  assertEquals(set.required, ["addr", "uid"]);
});

Deno.test("docType() reads the reference's type cells", () => {
  const cells: [string, string[], string][] = [
    ["integer (default: 15)", [], "number"],
    ["'admin'<br />'db_viewer'", [], "string"],
    ["**'regular'**", [], "string"],
    ["boolean", [], "boolean"],
    ["array of integers", [], "array"],
    ['[CRDB database_config]({{<relref "x">}}) object', [], "object"],
    ["complex object", [], "object"],
    ["{{<code>}}", ["[{", '  "a": string', "}] {{</code>}}"], "array"],
  ];
  for (const [cell, after, type] of cells) assertEquals(docType(cell, after), type, cell);
});

Deno.test("docFields() reads only the object's own table; widen() adds documented fields as optional", () => {
  const page = [
    "| Name | Type/Value | Description |",
    "|---|---|---|",
    "| uid | integer | id |",
    "| status | 'queued'<br />'done' | state |",
    "",
    "Possible `error_code` values:",
    "| Code | Description |",
    "| internal_error | An internal error |",
  ].join("\n");
  const documented = docFields(page, "doc", ["uid"]);
  assertEquals(documented.fields, { status: ["string"], uid: ["number"] });
  const widened = widen(fieldsOf([{ uid: "1" }], "capture"), documented);
  assertEquals([widened.fields.uid, widened.fields.status, widened.required], [["string", "number"], ["string"], [
    "uid",
  ]]);
});
