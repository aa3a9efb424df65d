import { assertEquals } from "../../testing/assert.ts";
import { listenFailure } from "./listen_error.ts";

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });
const target = {
  program: "storectl server",
  hostname: "127.0.0.1",
  port: 8080,
  portFix: "set PORT",
  hostFix: "set HOST",
};

Deno.test("listenFailure() names the address, the reason and the setting to change", () => {
  assertEquals(
    listenFailure(coded("EADDRINUSE", "listen EADDRINUSE: address already in use 127.0.0.1:8080"), target),
    "storectl server cannot listen on 127.0.0.1:8080: the address is already in use; stop the other process or set PORT (0 picks a free port)",
  );
  assertEquals(
    listenFailure(coded("EACCES"), { ...target, port: 80 }),
    "storectl server cannot listen on 127.0.0.1:80: permission denied (ports below 1024 need privileges); set PORT",
  );
  assertEquals(
    listenFailure(coded("EADDRNOTAVAIL"), { ...target, hostname: "::2" }),
    "storectl server cannot listen on [::2]:8080: the address is not one of this machine's; set HOST",
  );
  assertEquals(
    listenFailure(new Error("something else"), target),
    "storectl server cannot listen on 127.0.0.1:8080: something else",
  );
});
