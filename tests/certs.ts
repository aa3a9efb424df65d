import { requireTool } from "./tools.ts";

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
