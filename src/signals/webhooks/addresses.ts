/**
 * The IP addresses a webhook may not reach: a request sent on a customer's behalf must not become a way
 * into the operator's own network (server-side request forgery). Pure: text in, a class or null out.
 *
 * Refused ranges, each with the RFC that sets it aside:
 * - IPv4: 0.0.0.0/8 "this network" (RFC 1122 §3.2.1.3), 127.0.0.0/8 loopback (RFC 1122), 10/8, 172.16/12,
 *   192.168/16 private (RFC 1918), 100.64.0.0/10 shared address space of carrier-grade NAT (RFC 6598),
 *   169.254/16 link-local (RFC 3927), 192.0.0.0/24 protocol assignments (RFC 6890), 198.18/15
 *   benchmarking (RFC 2544), 224/4 multicast (RFC 5771), 240/4 reserved and the broadcast address (RFC 1112).
 * - IPv6 (RFC 4291): :: unspecified, ::1 loopback, fe80::/10 link-local, ff00::/8 multicast; fc00::/7
 *   unique local (RFC 4193), fec0::/10 site-local (deprecated by RFC 3879), 100::/64 discard (RFC 6666),
 *   64:ff9b:1::/48 local-use translation (RFC 8215).
 * - Cloud metadata services, named as such: 169.254.169.254 (AWS, GCP, Azure, OpenStack, Oracle),
 *   169.254.170.2 (AWS ECS task credentials), 100.100.100.200 (Alibaba Cloud), fd00:ec2::254 (AWS IPv6).
 * - IPv6 forms that carry an IPv4 address are judged by that address: IPv4-mapped ::ffff:0:0/96 and the
 *   deprecated IPv4-compatible ::/96 (RFC 4291 §2.5.5), NAT64 64:ff9b::/96 (RFC 6052), 6to4 2002::/16
 *   (RFC 3056). So ::ffff:127.0.0.1 is loopback, as the kernel would treat it.
 *
 * Documentation ranges (192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32) are not refused: nothing
 * answers there, and tests use them as stand-ins for public addresses.
 */
import { isIPv4, isIPv6 } from 'node:net';

export type AddressClass = 'loopback' | 'private' | 'link-local' | 'unspecified' | 'cgnat' | 'metadata' | 'multicast' | 'reserved';

/** How a refusal names each class ("127.0.0.1 is a loopback address"). */
export const CLASS_WORDS: Readonly<Record<AddressClass, string>> = Object.freeze({
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address',
  unspecified: 'an unspecified ("this network") address',
  cgnat: 'a carrier-grade NAT (shared, RFC 6598) address',
  metadata: 'a cloud metadata service address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
});

export interface Range {
  cidr: string;
  family: 4 | 6;
  class: AddressClass;
}

/** The refused ranges, most specific first (the first match decides the class). */
export const REFUSED_RANGES: readonly Range[] = Object.freeze([
  { cidr: '169.254.169.254/32', family: 4, class: 'metadata' },
  { cidr: '169.254.170.2/32', family: 4, class: 'metadata' },
  { cidr: '100.100.100.200/32', family: 4, class: 'metadata' },
  { cidr: '0.0.0.0/8', family: 4, class: 'unspecified' },
  { cidr: '127.0.0.0/8', family: 4, class: 'loopback' },
  { cidr: '10.0.0.0/8', family: 4, class: 'private' },
  { cidr: '172.16.0.0/12', family: 4, class: 'private' },
  { cidr: '192.168.0.0/16', family: 4, class: 'private' },
  { cidr: '100.64.0.0/10', family: 4, class: 'cgnat' },
  { cidr: '169.254.0.0/16', family: 4, class: 'link-local' },
  { cidr: '192.0.0.0/24', family: 4, class: 'reserved' },
  { cidr: '198.18.0.0/15', family: 4, class: 'reserved' },
  { cidr: '224.0.0.0/4', family: 4, class: 'multicast' },
  { cidr: '240.0.0.0/4', family: 4, class: 'reserved' },
  { cidr: 'fd00:ec2::254/128', family: 6, class: 'metadata' },
  { cidr: '::/128', family: 6, class: 'unspecified' },
  { cidr: '::1/128', family: 6, class: 'loopback' },
  { cidr: 'fc00::/7', family: 6, class: 'private' },
  { cidr: 'fec0::/10', family: 6, class: 'private' },
  { cidr: '64:ff9b:1::/48', family: 6, class: 'private' },
  { cidr: 'fe80::/10', family: 6, class: 'link-local' },
  { cidr: 'ff00::/8', family: 6, class: 'multicast' },
  { cidr: '100::/64', family: 6, class: 'reserved' },
] as const satisfies readonly Range[]);

/** IPv6 prefixes whose addresses carry an IPv4 address, and the byte offset where it sits. */
const EMBEDDING: ReadonlyArray<{ cidr: string; offset: number }> = [
  { cidr: '::ffff:0:0/96', offset: 12 },
  { cidr: '::/96', offset: 12 },
  { cidr: '64:ff9b::/96', offset: 12 },
  { cidr: '2002::/16', offset: 2 },
];

/** Dotted-decimal IPv4 only (the form DNS answers and URL parsing produce): 4 bytes, or null. */
export function parseIpv4(text: string): Uint8Array | null {
  if (!isIPv4(text)) return null;
  const parts = text.split('.').map(Number);
  return parts.length === 4 && parts.every((p) => Number.isInteger(p) && p >= 0 && p <= 255) ? Uint8Array.from(parts) : null;
}

/** Any RFC 4291 text form of an IPv6 address (a `%zone` is ignored): 16 bytes, or null. */
export function parseIpv6(text: string): Uint8Array | null {
  let s = text.includes('%') ? text.slice(0, text.indexOf('%')) : text;
  if (!isIPv6(s)) return null;
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIpv4(tail);
    if (!v4) return null;
    s = `${s.slice(0, lastColon + 1)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const rest = halves.length === 2 ? (halves[1] ? halves[1].split(':') : []) : null;
  const groups = rest === null ? head : [...head, ...Array<string>(8 - head.length - rest.length).fill('0'), ...rest];
  if (groups.length !== 8) return null;
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    const g = groups[i]!;
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    const v = parseInt(g, 16);
    bytes[2 * i] = v >> 8;
    bytes[2 * i + 1] = v & 0xff;
  }
  return bytes;
}

function parseCidr(cidr: string): { bytes: Uint8Array; bits: number } {
  const [addr, bits] = cidr.split('/') as [string, string];
  const bytes = parseIpv4(addr) ?? parseIpv6(addr);
  if (!bytes) throw new RangeError(`bad CIDR ${cidr}`);
  return { bytes, bits: Number(bits) };
}

function inPrefix(addr: Uint8Array, prefix: { bytes: Uint8Array; bits: number }): boolean {
  if (addr.length !== prefix.bytes.length) return false;
  const whole = prefix.bits >> 3;
  for (let i = 0; i < whole; i++) if (addr[i] !== prefix.bytes[i]) return false;
  const rest = prefix.bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((addr[whole]! ^ prefix.bytes[whole]!) & mask) === 0;
}

const RANGES = REFUSED_RANGES.map((r) => ({ ...parseCidr(r.cidr), class: r.class }));
const EMBEDDINGS = EMBEDDING.map((e) => ({ ...parseCidr(e.cidr), offset: e.offset }));

function classifyBytes(addr: Uint8Array): AddressClass | null {
  for (const r of RANGES) if (inPrefix(addr, r)) return r.class;
  if (addr.length === 16) {
    for (const e of EMBEDDINGS) if (inPrefix(addr, e)) return classifyBytes(addr.subarray(e.offset, e.offset + 4));
  }
  return null;
}

/**
 * The class of refused address `ip` falls in, or null for an address a webhook may reach. Text that is not
 * an IP address (dotted-decimal IPv4 or IPv6) is refused as `reserved`: the caller passes only addresses,
 * so anything else is a mistake and must not pass for public.
 */
export function classifyAddress(ip: string): AddressClass | null {
  const bytes = parseIpv4(ip) ?? parseIpv6(ip);
  return bytes ? classifyBytes(bytes) : 'reserved';
}
