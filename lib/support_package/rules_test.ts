import { assertEquals } from "../../tests/assert.ts";
import { currentLogOf, isLogFile, isNestedArchive, normalizeName, unsafePathReason } from "./rules.ts";

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
