import { requireTool } from "./tools.ts";

/**
 * A fixed certificate for parsers (subject `cluster.example.local`, expires 2036-11-20T18:53:08Z),
 * made with `openssl req -x509 -newkey ec … -days 3650 -subj "/CN=cluster.example.local/O=Example"`.
 */
export const FIXED_CERTIFICATE = `-----BEGIN CERTIFICATE-----
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

/**
 * A self-signed certificate for localhost and 127.0.0.1 (or `subjectAltName`) made by the real
 * `openssl`, as a cluster would present it; declare the test with `ignore: missingTools("openssl")`.
 */
export async function opensslCertificate(
  subjectAltName = "DNS:localhost,IP:127.0.0.1",
): Promise<{ cert: string; key: string; certFile: string }> {
  const openssl = requireTool("openssl");
  const dir = await Deno.makeTempDir();
  const out = await new Deno.Command(openssl, {
    args: [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      `subjectAltName=${subjectAltName}`,
      "-keyout",
      `${dir}/key.pem`,
      "-out",
      `${dir}/cert.pem`,
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (out.code !== 0) throw new Error(`openssl failed: ${new TextDecoder().decode(out.stderr)}`);
  return {
    cert: await Deno.readTextFile(`${dir}/cert.pem`),
    key: await Deno.readTextFile(`${dir}/key.pem`),
    certFile: `${dir}/cert.pem`,
  };
}
