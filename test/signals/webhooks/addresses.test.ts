/**
 * The refused address ranges of the webhook target guard: a table of addresses in every form (IPv4, IPv6,
 * IPv4-mapped, -compatible, NAT64 and 6to4 forms, zone ids), and a cross-check of the prefix matching at
 * every range's edges against a second implementation, node:net's BlockList.
 */
import { BlockList } from 'node:net';
import { describe, expect, it } from 'vitest';
import { classifyAddress, parseIpv4, parseIpv6, REFUSED_RANGES, type AddressClass } from '../../../src/signals/webhooks/addresses.js';

const TABLE: Array<[string, AddressClass | null]> = [
  // IPv4 loopback, unspecified, private (RFC 1918), CGNAT, link-local, metadata
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['127.1.2.3', 'loopback'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['172.15.255.255', null],
  ['172.32.0.0', null],
  ['192.168.1.1', 'private'],
  ['192.169.0.1', null],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['100.63.255.255', null],
  ['100.128.0.0', null],
  ['169.254.0.1', 'link-local'],
  ['169.254.169.254', 'metadata'],
  ['169.254.170.2', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['192.0.0.8', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  // Public IPv4 (and documentation ranges, deliberately allowed)
  ['8.8.8.8', null],
  ['1.1.1.1', null],
  ['93.184.216.34', null],
  ['203.0.113.7', null],
  ['11.0.0.1', null],
  ['126.255.255.255', null],
  ['128.0.0.1', null],
  ['223.255.255.255', null],
  // IPv6
  ['::', 'unspecified'],
  ['0:0:0:0:0:0:0:0', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['fc00::1', 'private'],
  ['fd12:3456:789a::1', 'private'],
  ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'private'],
  ['fd00:ec2::254', 'metadata'],
  ['FD00:EC2:0:0:0:0:0:254', 'metadata'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fec0::1', 'private'],
  ['ff02::1', 'multicast'],
  ['100::1', 'reserved'],
  ['64:ff9b:1::1', 'private'],
  ['2001:4860:4860::8888', null],
  ['2606:4700:4700::1111', null],
  ['2001:db8::1', null],
  ['fbff:ffff::1', null],
  ['fe00::1', null],
  // IPv6 forms carrying an IPv4 address are judged by it
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::ffff:8.8.8.8', null],
  ['::127.0.0.1', 'loopback'],
  ['::7f00:1', 'loopback'],
  ['::10.0.0.1', 'private'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b::a9fe:a9fe', 'metadata'],
  ['64:ff9b::808:808', null],
  ['2002:7f00:1::', 'loopback'],
  ['2002:c0a8:101::1', 'private'],
  ['2002:808:808::1', null],
  // Not an address at all: never mistaken for a public one
  ['localhost', 'reserved'],
  ['0177.0.0.1', 'reserved'],
  ['2130706433', 'reserved'],
  ['', 'reserved'],
  ['1.2.3', 'reserved'],
  ['::ffff:999.0.0.1', 'reserved'],
];

describe('classifyAddress', () => {
  it.each(TABLE)('%s → %s', (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });
});

describe('parseIpv6', () => {
  it.each([
    ['::', '00000000000000000000000000000000'],
    ['::1', '00000000000000000000000000000001'],
    ['1::', '00010000000000000000000000000000'],
    ['1:2:3:4:5:6:7:8', '00010002000300040005000600070008'],
    ['fe80::1:2', 'fe800000000000000000000000010002'],
    ['::ffff:1.2.3.4', '00000000000000000000ffff01020304'],
    ['1:2:3:4:5:6:1.2.3.4', '00010002000300040005000601020304'],
  ])('%s', (text, hex) => {
    expect(Buffer.from(parseIpv6(text)!).toString('hex')).toBe(hex);
  });

  it('refuses what is not IPv6', () => {
    for (const t of ['1:2:3:4:5:6:7:8:9', '1::2::3', 'g::1', '12345::', '1.2.3.4', '']) expect(parseIpv6(t)).toBeNull();
  });
});

/** The addresses at and around a range's edges: first, last, one before, one after. */
function edges(cidr: string, family: 4 | 6): string[] {
  const [addr, bitsText] = cidr.split('/') as [string, string];
  const bits = Number(bitsText);
  const bytes = family === 4 ? parseIpv4(addr)! : parseIpv6(addr)!;
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  const width = BigInt(bytes.length * 8);
  const size = 1n << (width - BigInt(bits));
  const max = (1n << width) - 1n;
  const first = n;
  const last = n + size - 1n;
  const out = [first, last, first - 1n, last + 1n, first + size / 2n].filter((x) => x >= 0n && x <= max);
  return out.map((x) => {
    if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((x >> s) & 255n)).join('.');
    return Array.from({ length: 8 }, (_, i) => ((x >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');
  });
}

describe('the refused ranges agree with node:net BlockList at every edge', () => {
  const list = new BlockList();
  for (const r of REFUSED_RANGES) {
    const [addr, bits] = r.cidr.split('/') as [string, string];
    list.addSubnet(addr, Number(bits), r.family === 4 ? 'ipv4' : 'ipv6');
  }
  // IPv6 forms that carry an IPv4 address are judged by it (BlockList knows only the mapped form); the
  // edges of ::/96 and 2002::/16 are left to the table above.
  const carriesIpv4 = (ip: string): boolean => /^(0:){5}ffff:|^(0:){6}|^64:ff9b:(0:){4}|^2002:/.test(ip);
  const cases = REFUSED_RANGES.flatMap((r) => edges(r.cidr, r.family).map((ip) => [r.cidr, ip, r.family] as const)).filter(
    ([, ip, family]) => family === 4 || !carriesIpv4(ip),
  );

  it.each(cases)('%s: %s', (_cidr, ip, family) => {
    expect(classifyAddress(ip) !== null).toBe(list.check(ip, family === 4 ? 'ipv4' : 'ipv6'));
  });
});
