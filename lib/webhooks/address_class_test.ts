import { assertEquals } from "../../testing/assert.ts";
import { type AddressClass, classifyAddress } from "./address_class.ts";

const TABLE: [address: string, expected: AddressClass | undefined][] = [
  ["127.0.0.1", "a loopback address"],
  ["127.255.255.254", "a loopback address"],
  ["::1", "a loopback address"],
  ["0:0:0:0:0:0:0:1", "a loopback address"],
  ["0.0.0.0", "an unspecified address"],
  ["0.255.1.2", "an unspecified address"],
  ["::", "an unspecified address"],
  ["10.0.0.5", "a private address"],
  ["172.16.0.1", "a private address"],
  ["172.31.255.255", "a private address"],
  ["192.168.1.1", "a private address"],
  ["fc00::1", "a private address"],
  ["fd12:3456::1", "a private address"],
  ["fec0::1", "a private address"],
  ["169.254.0.1", "a link-local address"],
  ["fe80::1", "a link-local address"],
  ["fe80::1%eth0", "a link-local address"],
  ["febf::1", "a link-local address"],
  ["169.254.169.254", "a cloud metadata address"],
  ["fd00:ec2::254", "a cloud metadata address"],
  ["100.64.0.1", "a carrier-grade NAT address"],
  ["100.127.255.255", "a carrier-grade NAT address"],
  ["224.0.0.1", "a multicast address"],
  ["239.255.255.250", "a multicast address"],
  ["ff02::1", "a multicast address"],
  ["255.255.255.255", "a broadcast address"],
  ["240.0.0.1", "a reserved address"],
  ["192.0.2.1", "a reserved address"],
  ["198.18.0.1", "a reserved address"],
  ["2001:db8::1", "a reserved address"],
  ["2001::1", "a reserved address"], // Teredo
  ["100::1", "a reserved address"],
  ["4000::1", "a reserved address"], // outside 2000::/3
  // IPv4 inside IPv6: judged by the IPv4 address.
  ["::ffff:127.0.0.1", "a loopback address"],
  ["::ffff:7f00:1", "a loopback address"],
  ["::ffff:a9fe:a9fe", "a cloud metadata address"],
  ["::ffff:10.1.2.3", "a private address"],
  ["::127.0.0.1", "a loopback address"], // IPv4-compatible
  ["::8.8.8.8", "a reserved address"], // IPv4-compatible is deprecated
  ["64:ff9b::7f00:1", "a loopback address"],
  ["64:ff9b::10.0.0.1", "a private address"],
  ["64:ff9b::169.254.169.254", "a cloud metadata address"],
  ["64:ff9b:1::1", "a private address"],
  ["2002:7f00:1::", "a loopback address"], // 6to4
  ["2002:a00:1::1", "a private address"],
  // Public: neighbours of the ranges above.
  ["8.8.8.8", undefined],
  ["1.1.1.1", undefined],
  ["11.0.0.1", undefined],
  ["100.63.255.255", undefined],
  ["100.128.0.1", undefined],
  ["126.255.255.255", undefined],
  ["128.0.0.1", undefined],
  ["169.253.255.255", undefined],
  ["172.15.255.255", undefined],
  ["172.32.0.1", undefined],
  ["192.167.255.255", undefined],
  ["223.255.255.255", undefined],
  ["2606:4700:4700::1111", undefined],
  ["2a00:1450:4001:80b::200e", undefined],
  ["::ffff:8.8.8.8", undefined],
  ["64:ff9b::808:808", undefined],
  ["2002:808:808::1", undefined],
  // Not addresses at all.
  ["", "not an IP address"],
  ["example.com", "not an IP address"],
  ["1.2.3", "not an IP address"],
  ["1.2.3.256", "not an IP address"],
  ["01.2.3.4", "not an IP address"],
  ["1:::2", "not an IP address"],
  ["1::2::3", "not an IP address"],
  ["1:2:3:4:5:6:7:8:9", "not an IP address"],
  ["1:2:3:4::5:6:7:8", "not an IP address"],
  ["::g", "not an IP address"],
];

Deno.test("classifyAddress() names each special-purpose range and passes public addresses", () => {
  const wrong = TABLE.map(([address, expected]) => [address, classifyAddress(address), expected])
    .filter(([, actual, expected]) => actual !== expected);
  assertEquals(wrong, []);
});
