import { assertEquals } from "../../testing/assert.ts";
import { FIXED_CERTIFICATE as PEM } from "../../testing/certs.ts";
import { describeCertificate } from "./certificates.ts";

Deno.test("describeCertificate() reads the subject's CN and the end of validity", () => {
  assertEquals(describeCertificate(PEM), { subject: "cluster.example.local", notAfter: "2036-11-20T18:53:08Z" });
});

Deno.test("describeCertificate() is undefined for text that holds no readable certificate", () => {
  assertEquals(describeCertificate(""), undefined);
  assertEquals(describeCertificate("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"), undefined);
  assertEquals(describeCertificate(PEM.replace("MIIBuTCC", "MIIBuTDD")), undefined);
});
