import { assertEquals } from "../../tests/assert.ts";
import { describeCertificate } from "./certificates.ts";

/** Made with `openssl req -x509 -newkey ec … -days 3650 -subj "/CN=cluster.example.local/O=Example"`. */
const PEM = `-----BEGIN CERTIFICATE-----
MIIBuTCCAV+gAwIBAgIUHgrkGufooZ+6UNHW275vcBY4cVcwCgYIKoZIzj0EAwIw
MjEeMBwGA1UEAwwVY2x1c3Rlci5leGFtcGxlLmxvY2FsMRAwDgYDVQQKDAdFeGFt
cGxlMB4XDTI2MTEyMzE4NTMwOFoXDTM2MTEyMDE4NTMwOFowMjEeMBwGA1UEAwwV
Y2x1c3Rlci5leGFtcGxlLmxvY2FsMRAwDgYDVQQKDAdFeGFtcGxlMFkwEwYHKoZI
zj0CAQYIKoZIzj0DAQcDQgAEOJcllLrJDI0EZGh/ZSMq7Wd5lnlJqqL6FaXWel8Z
BerSxTlwI2+Ri9AIt9kl4g1Jqtt1wURHH8FqP8t7n92BMaNTMFEwHQYDVR0OBBYE
FEn14CgkCOvZ6MkJMvo2BORiSTaSMB8GA1UdIwQYMBaAFEn14CgkCOvZ6MkJMvo2
BORiSTaSMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIhALhOpvJx
mXQkgqy290pf/lGBo9iY+Gb7aELjoF6vhOokAiBlILVk2cWmS5zahqrQmsk5ekfZ
ljabOoxRu2tGFFBsrw==
-----END CERTIFICATE-----
`;

Deno.test("describeCertificate() reads the subject's CN and the end of validity", () => {
  assertEquals(describeCertificate(PEM), { subject: "cluster.example.local", notAfter: "2036-11-20T18:53:08Z" });
});

Deno.test("describeCertificate() is undefined for text that holds no readable certificate", () => {
  assertEquals(describeCertificate(""), undefined);
  assertEquals(describeCertificate("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----"), undefined);
  assertEquals(describeCertificate(PEM.replace("MIIBuTCC", "MIIBuTDD")), undefined);
});
