// Addresses a delivery must never go to: link-local (169.254.0.0/16, fe80::/10, where cloud
// metadata services answer), unspecified / "this network" (0.0.0.0/8, ::), and the IPv6 metadata
// address of one cloud (fd00:ec2::254). IPv4-mapped IPv6 forms (::ffff:169.254.169.254) count too,
// and so do the other IPv6 forms that embed a link-local IPv4 address and reach it through a
// translator or tunnel: NAT64 (64:ff9b::a9fe:a9fe, 64:ff9b:1::/48), IPv4-compatible (::a9fe:a9fe),
// IPv4-translated (::ffff:0:a9fe:a9fe), 6to4 (2002:a9fe::/32) and a Teredo server (2001:0:a9fe::/48).
// The emulator refuses such webhook URLs with 400 and checks resolved addresses before it connects;
// the editor can use the same check to refuse the URL up front.
import { BlockList, isIP } from 'node:net';

const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');
/** IPv6 addresses that embed an IPv4 address of 169.254.0.0/16 (RFC 6052, 4291, 2765, 3056, 4380). */
const EMBEDDED_LINK_LOCAL: [string, number][] = [
  ['64:ff9b::a9fe:0', 112], // NAT64 well-known prefix (/96)
  ['64:ff9b:1:a9fe::', 64], // NAT64 local-use prefix (/48: the IPv4 address's first 16 bits at 48-63)
  ['::a9fe:0', 112], // IPv4-compatible (deprecated)
  ['::ffff:0:a9fe:0', 112], // IPv4-translated (SIIT)
  ['2002:a9fe::', 32], // 6to4
  ['2001:0:a9fe::', 48], // Teredo server
];
for (const [prefix, bits] of EMBEDDED_LINK_LOCAL) LINK_LOCAL.addSubnet(prefix, bits, 'ipv6');
const UNSPECIFIED = new BlockList();
UNSPECIFIED.addSubnet('0.0.0.0', 8, 'ipv4');
UNSPECIFIED.addAddress('::', 'ipv6');
const METADATA = new BlockList();
METADATA.addAddress('fd00:ec2::254', 'ipv6');

/** Why deliveries must not go to this IP address, or undefined when they may (or it is not an IP). */
export function forbiddenAddress(address: string): string | undefined {
  const ip = address.replace(/^\[|\]$/g, '');
  const family = isIP(ip);
  if (family === 0) return undefined;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (LINK_LOCAL.check(ip, type)) return `${ip} is a link-local address (cloud metadata services answer there)`;
  if (UNSPECIFIED.check(ip, type)) return `${ip} is an unspecified address, not a host`;
  if (METADATA.check(ip, type)) return `${ip} is a cloud metadata address`;
  return undefined;
}

/**
 * Why a webhook URL cannot be a delivery target, or undefined when it can: it must be an absolute
 * http(s) URL with a host that is not a forbidden address (above). Host names are not resolved here.
 */
export function forbiddenTarget(url: URL): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `the URL must use http or https, not ${url.protocol.slice(0, -1)}`;
  if (!url.hostname) return 'the URL must name a host';
  return forbiddenAddress(url.hostname);
}
