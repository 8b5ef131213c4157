import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Webhooks must not become a way to reach the server's own network (SSRF): loopback, private,
 * link-local (cloud metadata), carrier-grade NAT, multicast and reserved ranges are refused,
 * when the URL is saved and again on every connection (a name may resolve elsewhere later).
 */
const blocked = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of [
  // Unspecified, loopback and the IPv4-compatible form (::127.0.0.1): the first 96 bits zero.
  ['::', 96],
  // NAT64 (well-known and local-use prefixes): a gateway would dial the IPv4 address inside.
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  // Teredo: the IPv4 address inside is obfuscated and reached through a relay.
  ['2001::', 32],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(address, prefix, 'ipv6');

export const PRIVATE_ADDRESS_MESSAGE = 'Webhook URL must be a public address';

export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    // An IPv4 address written as IPv6 is judged as the IPv4 address.
    const inside = embeddedIPv4(address);
    if (inside) return isPublicAddress(inside);
    return !blocked.check(address, 'ipv6');
  }
  return !blocked.check(address, 'ipv4');
}

/**
 * The IPv4 address that an IPv6 one carries to a gateway: mapped (::ffff:a.b.c.d), translated
 * (::ffff:0:a.b.c.d, a SIIT translator) or 6to4 (2002:aabb:ccdd::), in any spelling.
 */
function embeddedIPv4(address: string): string | null {
  const p = ipaddr.IPv6.parse(address.replace(/%.*$/, '')).parts;
  const ipv4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && p[5] === 0xffff) return ipv4(p[6]!, p[7]!);
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return ipv4(p[6]!, p[7]!);
  if (p[0] === 0x2002) return ipv4(p[1]!, p[2]!);
  return null;
}

/** Every address a host name stands for (an IP literal stands for itself). */
export async function addressesOf(hostname: string): Promise<string[]> {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(bare)) return [bare];
  const found = await dns.promises.lookup(bare, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

/**
 * A `lookup` for http.request that connects only to public addresses: the check happens on
 * the address actually dialled, so DNS answering differently later changes nothing.
 */
export const publicOnlyLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 4);
    const list = addresses as unknown as dns.LookupAddress[];
    const good = list.filter((a) => isPublicAddress(a.address));
    if (good.length === 0) {
      const refused = Object.assign(new Error(PRIVATE_ADDRESS_MESSAGE), { code: 'EPRIVATEADDRESS' });
      return callback(refused, '', 4);
    }
    if ((options as { all?: boolean }).all)
      return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, good);
    return callback(null, good[0]!.address, good[0]!.family);
  });
};
