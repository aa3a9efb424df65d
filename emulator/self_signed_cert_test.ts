import { assert, assertEquals, assertMatch, assertRejects } from "../testing/assert.ts";
import { missingTools, requireTool } from "../testing/tools.ts";
import { generateSelfSignedCertificate } from "./self_signed_cert.ts";

Deno.test("generateSelfSignedCertificate() passes openssl's checks for localhost and 127.0.0.1", {
  ignore: missingTools("openssl"),
}, async () => {
  const openssl = requireTool("openssl");
  const { cert } = await generateSelfSignedCertificate("storectl test");
  const file = await Deno.makeTempFile({ suffix: ".pem" });
  try {
    await Deno.writeTextFile(file, cert);
    const run = async (...args: string[]) => {
      const out = await new Deno.Command(openssl, { args, stdout: "piped", stderr: "piped" }).output();
      return { code: out.code, text: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr) };
    };
    const text = (await run("x509", "-in", file, "-noout", "-text")).text;
    assertMatch(text, /Version: 3/);
    assertMatch(text, /ecdsa-with-SHA256/);
    assertMatch(text, /DNS:localhost, IP Address:127\.0\.0\.1/);
    assertMatch(text, /CN\s*=\s*storectl test/);
    assertEquals((await run("verify", "-CAfile", file, file)).code, 0);
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("generateSelfSignedCertificate() serves TLS that a client trusts only when told to", async () => {
  const { cert, key } = await generateSelfSignedCertificate("storectl test");
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, cert, key, onListen() {} }, () => new Response("hello"));
  const url = `https://localhost:${server.addr.port}/`;
  try {
    const client = Deno.createHttpClient({ caCerts: [cert] });
    assertEquals(await (await fetch(url, { client })).text(), "hello");
    client.close();
    await assertRejects(() => fetch(url));
  } finally {
    await server.shutdown();
  }
  assert(key.startsWith("-----BEGIN PRIVATE KEY-----"));
});
