import { assert, assertEquals, assertMatch } from "../../testing/assert.ts";
import { systemLookup } from "../runtime/dns_lookup.ts";
import { checkUrl, type DestinationPolicy, type Lookup, resolveDestination } from "./destination.ts";

const STRICT: DestinationPolicy = { allowHttp: false, allowHosts: [] };
const HTTP: DestinationPolicy = { allowHttp: true, allowHosts: [] };

/** A resolver with fixed answers, the way a hostile DNS server would answer. */
function fixedLookup(answers: Record<string, string[]>, asked: string[] = []): Lookup {
  return (hostname) => {
    asked.push(hostname);
    const addresses = answers[hostname];
    if (!addresses) return Promise.reject(Object.assign(new Error("not found"), { code: "ENOTFOUND" }));
    return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })));
  };
}

// Each URL is refused by checkUrl with a reason naming what it matched.
const REFUSED: [url: string, reason: RegExp][] = [
  ["http://hooks.example/h", /uses plain http; use https, or set WEBHOOK_ALLOW_HTTP/],
  ["ftp://hooks.example/h", /is not an https URL/],
  ["https://user:secret@hooks.example/h", /^webhook URL https:\/\/hooks\.example\/h carries a user name or password/],
  ["https://user@hooks.example/h", /carries a user name or password/],
  ["not a url", /is not an absolute URL/],
  ["https://127.0.0.1/h", /points at 127\.0\.0\.1, a loopback address; name the host in WEBHOOK_ALLOW_HOSTS/],
  ["https://2130706433/", /points at 127\.0\.0\.1, a loopback address/],
  ["https://0x7f.1/", /points at 127\.0\.0\.1, a loopback address/],
  ["https://0177.0.0.1/", /points at 127\.0\.0\.1, a loopback address/],
  ["https://127.1/", /points at 127\.0\.0\.1, a loopback address/],
  ["https://[::1]/", /points at ::1, a loopback address/],
  ["https://[::ffff:7f00:1]/", /points at ::ffff:7f00:1, a loopback address/],
  ["https://[::ffff:127.0.0.1]/", /points at ::ffff:7f00:1, a loopback address/],
  ["https://[64:ff9b::a00:1]/", /points at 64:ff9b::a00:1, a private address/],
  ["https://0.0.0.0/", /an unspecified address/],
  ["https://0/", /points at 0\.0\.0\.0, an unspecified address/],
  ["https://[::]/", /an unspecified address/],
  ["https://10.0.0.5/", /a private address/],
  ["https://172.20.1.1/", /a private address/],
  ["https://192.168.0.10/", /a private address/],
  ["https://[fd00::5]/", /a private address/],
  ["https://169.254.1.1/", /a link-local address/],
  ["https://[fe80::1]/", /a link-local address/],
  ["https://169.254.169.254/latest/meta-data/", /a cloud metadata address/],
  ["https://[fd00:ec2::254]/", /a cloud metadata address/],
  ["https://metadata.google.internal/computeMetadata/v1/", /names metadata\.google\.internal, a cloud metadata/],
  ["https://METADATA.google.internal./", /names metadata\.google\.internal, a cloud metadata/],
  ["https://100.64.1.1/", /a carrier-grade NAT address/],
  ["https://224.0.0.251/", /a multicast address/],
  ["https://[ff02::1]/", /a multicast address/],
  ["https://255.255.255.255/", /a broadcast address/],
  ["https://240.1.2.3/", /a reserved address/],
  ["https://localhost:8443/h", /names localhost, a loopback address/],
  ["https://LocalHost./h", /names localhost, a loopback address/],
  ["https://api.localhost/h", /names api\.localhost, a loopback address/],
];

Deno.test("checkUrl() refuses each class of URL, naming why and the fix", async (t) => {
  for (const [url, reason] of REFUSED) {
    await t.step(url, () => {
      const checked = checkUrl(url, STRICT);
      assert(!checked.ok, `${url} was accepted`);
      assertMatch(checked.reason, reason);
      assert(!checked.reason.includes("secret"), "the password is not repeated");
    });
  }
});

Deno.test("checkUrl() accepts public https URLs, and http ones only with allowHttp", () => {
  for (const url of ["https://hooks.example/h?x=1", "https://8.8.8.8:8443/", "https://[2606:4700::1111]/"]) {
    const checked = checkUrl(url, STRICT);
    assert(checked.ok, `${url}: ${!checked.ok && checked.reason}`);
    assertEquals(checked.url.href, new URL(url).href);
  }
  assert(!checkUrl("http://hooks.example/h", STRICT).ok);
  assert(checkUrl("http://hooks.example/h", HTTP).ok);
  // allowHttp is about the scheme only: the address classes still apply.
  assertMatch((checkUrl("http://127.0.0.1/", HTTP) as { reason: string }).reason, /a loopback address/);
});

Deno.test("checkUrl() honours allowHosts for names and address literals, in any spelling", () => {
  const policy = { allowHttp: true, allowHosts: ["LOCALHOST", "127.0.0.1", "[::1]", "10.1.2.3"] };
  for (const url of ["http://localhost:8080/", "http://2130706433/", "http://[0:0::1]/", "https://10.1.2.3/"]) {
    const checked = checkUrl(url, policy);
    assert(checked.ok, `${url}: ${!checked.ok && checked.reason}`);
  }
  assert(!checkUrl("http://127.0.0.2/", policy).ok, "only the named address is allowed");
  assert(!checkUrl("https://10.1.2.4/", policy).ok);
});

Deno.test("resolveDestination() returns the one resolved address of a public name", async () => {
  const asked: string[] = [];
  const lookup = fixedLookup({ "hooks.example": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"] }, asked);
  const url = new URL("https://hooks.example/h");
  assertEquals(await resolveDestination(url, STRICT, lookup), { ok: true, address: "93.184.215.14", family: 4 });
  assertEquals(asked, ["hooks.example"], "resolved once");
  const v6 = fixedLookup({ "hooks.example": ["2606:2800:21f:cb07:6820:80da:af6b:8b2c"] });
  assertEquals(await resolveDestination(url, STRICT, v6), {
    ok: true,
    address: "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
    family: 6,
  });
});

// A public-looking name whose DNS answer is one of the refused classes.
const RESOLVED: [addresses: string[], reason: RegExp][] = [
  [["127.0.0.1"], /^webhook URL https:\/\/x\.example\/h resolves to 127\.0\.0\.1, a loopback address; name the host/],
  [["10.0.0.5"], /resolves to 10\.0\.0\.5, a private address; name the host in WEBHOOK_ALLOW_HOSTS to allow it$/],
  [["93.184.215.14", "192.168.1.1"], /resolves to 192\.168\.1\.1, a private address/], // any address, not just the first
  [["::1"], /resolves to ::1, a loopback address/],
  [["::ffff:127.0.0.1"], /resolves to ::ffff:127\.0\.0\.1, a loopback address/],
  [["64:ff9b::a9fe:a9fe"], /a cloud metadata address/],
  [["169.254.169.254"], /resolves to 169\.254\.169\.254, a cloud metadata address/],
  [["fe80::1%eth0"], /a link-local address/],
  [["100.100.100.200"], /a carrier-grade NAT address/],
  [["0.0.0.0"], /an unspecified address/],
  [["239.1.1.1"], /a multicast address/],
  [["nonsense"], /resolves to nonsense, not an IP address$/],
];

Deno.test("resolveDestination() refuses a name when any address it resolves to is refused", async (t) => {
  for (const [addresses, reason] of RESOLVED) {
    await t.step(addresses.join(" "), async () => {
      const found = await resolveDestination(
        new URL("https://x.example/h"),
        STRICT,
        fixedLookup({ "x.example": addresses }),
      );
      assert(!found.ok, `${addresses} was accepted`);
      assertMatch(found.reason, reason);
    });
  }
});

Deno.test("resolveDestination() allows a listed host name, or a listed address it resolves to", async () => {
  const url = new URL("https://hooks.internal/h");
  const lookup = fixedLookup({ "hooks.internal": ["10.0.0.5"] });
  assertEquals(await resolveDestination(url, { allowHttp: false, allowHosts: ["hooks.internal"] }, lookup), {
    ok: true,
    address: "10.0.0.5",
    family: 4,
  });
  assertEquals(await resolveDestination(url, { allowHttp: false, allowHosts: ["10.0.0.5"] }, lookup), {
    ok: true,
    address: "10.0.0.5",
    family: 4,
  });
  assert(!(await resolveDestination(url, { allowHttp: false, allowHosts: ["other.internal"] }, lookup)).ok);
});

Deno.test("resolveDestination() judges literals and fixed names without asking the resolver", async () => {
  const asked: string[] = [];
  const lookup = fixedLookup({ localhost: ["93.184.215.14"] }, asked);
  assertMatch(
    (await resolveDestination(new URL("https://localhost/"), STRICT, lookup) as { reason: string }).reason,
    /loopback/,
  );
  assertMatch(
    (await resolveDestination(new URL("https://0x7f.1/"), STRICT, lookup) as { reason: string }).reason,
    /loopback/,
  );
  assertEquals(await resolveDestination(new URL("https://[2606:4700::1111]/"), STRICT, lookup), {
    ok: true,
    address: "2606:4700::1111",
    family: 6,
  });
  assertEquals(asked, []);
});

Deno.test("resolveDestination() reports a name that does not resolve", async () => {
  const found = await resolveDestination(new URL("https://gone.example/h"), STRICT, fixedLookup({}));
  assertEquals(found, {
    ok: false,
    reason: "webhook URL https://gone.example/h: gone.example does not resolve (ENOTFOUND)",
  });
  const empty = await resolveDestination(new URL("https://none.example/"), STRICT, fixedLookup({ "none.example": [] }));
  assertMatch((empty as { reason: string }).reason, /none\.example has no address/);
});

Deno.test("resolveDestination() uses the system resolver when given no lookup", async () => {
  // .invalid never resolves (RFC 6761): the error code is the system resolver's own.
  const found = await resolveDestination(new URL("https://nothing.invalid/"), STRICT);
  assertMatch((found as { reason: string }).reason, /nothing\.invalid does not resolve \((ENOTFOUND|EAI_AGAIN)\)/);
  const addresses = (await systemLookup("localhost")).map((a) => a.address);
  assert(addresses.includes("127.0.0.1") || addresses.includes("::1"), `localhost is ${addresses}`);
});
