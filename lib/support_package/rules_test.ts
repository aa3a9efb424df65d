import { assertEquals } from "../../testing/assert.ts";
import {
  currentLogOf,
  isLogFile,
  isNestedArchive,
  linkOnPath,
  MAX_NAME_BYTES,
  normalizeName,
  pathKey,
  unsafePathReason,
  utf8Length,
} from "./rules.ts";

Deno.test("unsafePathReason() refuses absolute paths, drive letters and '..' components", () => {
  const unsafe: [string, string][] = [
    ["/etc/passwd", "an absolute path"],
    ["\\\\server\\share\\x", "an absolute path"],
    ["C:\\Windows\\x", "a drive letter"],
    ["../evil", "a '..' component"],
    ["a/../../evil", "a '..' component"],
    ["a\\..\\evil", "a '..' component"],
    ["a/..", "a '..' component"],
    ["", "an empty name"],
  ];
  for (const [name, reason] of unsafe) assertEquals(unsafePathReason(name), reason, name);
  for (const name of ["a/b.log", "./a", "a/..b/c", "a/b../c", "...", "dir/"]) {
    assertEquals(unsafePathReason(name), undefined, name);
  }
});

Deno.test("isLogFile() matches *.log and rotated *.log.<n> only", () => {
  for (const name of ["a.log", "x/B.LOG", "x/a.log.1", "x/a.log.12"]) assertEquals(isLogFile(name), true, name);
  for (const name of ["a.log.gz", "a.logs", "a.log.old", "log", "a.txt", "x.log/"]) {
    assertEquals(isLogFile(name), false, name);
  }
});

Deno.test("isNestedArchive() matches .gz and .tgz in any case", () => {
  for (const name of ["a.gz", "a.tar.gz", "a.TGZ", "a.log.1.gz"]) assertEquals(isNestedArchive(name), true, name);
  for (const name of ["a.gzip", "a.tar", "gz", "a.gz.txt"]) assertEquals(isNestedArchive(name), false, name);
});

Deno.test("currentLogOf() names the current log of a rotated copy", () => {
  assertEquals(currentLogOf("n/logs/a.log.1"), "n/logs/a.log");
  assertEquals(currentLogOf("a.log.10"), "a.log");
  assertEquals(currentLogOf("a.log"), undefined);
  assertEquals(currentLogOf("a.log.1.gz"), undefined);
});

Deno.test("normalizeName() drops a leading ./ and a trailing /", () => {
  assertEquals(normalizeName("./a/b/"), "a/b");
  assertEquals(normalizeName("a"), "a");
});

Deno.test("unsafePathReason() refuses a name longer than MAX_NAME_BYTES in UTF-8", () => {
  assertEquals(unsafePathReason("a".repeat(MAX_NAME_BYTES)), undefined);
  assertEquals(unsafePathReason("a".repeat(MAX_NAME_BYTES + 1)), "longer than 4096 bytes");
  assertEquals(unsafePathReason("é".repeat(MAX_NAME_BYTES / 2)), undefined);
  assertEquals(unsafePathReason("é".repeat(MAX_NAME_BYTES / 2) + "a"), "longer than 4096 bytes");
});

Deno.test("utf8Length() counts as TextEncoder does", () => {
  for (const text of ["", "a.log", "ü", "журнал", "日本語", "😀x", "a\u0000b"]) {
    assertEquals(utf8Length(text), new TextEncoder().encode(text).length, text);
  }
});

Deno.test("pathKey() and linkOnPath() find a symbolic link on a name's path, however it is spelt", () => {
  assertEquals(pathKey("./Node_1//logs/./a.log"), "node_1/logs/a.log");
  assertEquals(pathKey("a\\b/"), "a/b");
  const links = new Map([[pathKey("Node_1"), "Node_1"], [pathKey("a/up"), "a/up"]]);
  assertEquals(linkOnPath("node_1/x", links), { link: "Node_1", under: true });
  assertEquals(linkOnPath("./NODE_1/", links), { link: "Node_1", under: false });
  assertEquals(linkOnPath("a//up/b/c", links), { link: "a/up", under: true });
  for (const name of ["node_10/x", "a/upper", "a", "x/node_1/y"]) {
    assertEquals(linkOnPath(name, links), undefined, name);
  }
});
