/**
 * The per-address connection cap's bookkeeping: how many connections each client address holds open in this
 * server process, and whether one more is allowed. Pure: the server (src/core/net/connection-caps.ts) tells it
 * of each connection that opens and closes.
 *
 * An address is counted by its client, not by its spelling: an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`,
 * how a dual-stack listener sees an IPv4 client) is its IPv4 address, and an IPv6 address counts by its /64,
 * the block one host or one customer line is given (RFC 6177), so one host cannot take 2^64 caps by rotating
 * its interface identifiers. Exempt addresses (the trusted proxies, whose connections carry many clients)
 * are not counted here: only the server's own cap bounds them.
 */
import { BlockList, isIP, isIPv4 } from 'node:net';

/** The key an address is counted under: an IPv4 address, or an IPv6 /64 as `xxxx:xxxx:xxxx:xxxx::/64`. */
export function addressKey(address: string): string {
  const bare = address.replace(/%.*$/, '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped) return mapped[1]!;
  if (isIP(bare) !== 6) return bare;
  return `${ipv6Groups(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address, in lower-case hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  let text = address;
  // A trailing dotted quad (`64:ff9b::1.2.3.4`) is the last two groups.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((g) => parseInt(g, 16).toString(16));
}

/** A list of addresses and CIDR ranges (TRUST_PROXY's form), as a membership test. */
export function addressMatcher(entries: readonly string[]): (address: string) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const type = isIPv4(address) ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return (address) => {
    const key = addressKey(address);
    if (isIPv4(key)) return list.check(key, 'ipv4');
    const bare = address.replace(/%.*$/, '');
    return isIP(bare) === 6 && list.check(bare, 'ipv6');
  };
}

export class AddressCount {
  private readonly open = new Map<string, number>();

  constructor(
    private readonly cap: number,
    private readonly exempt: (address: string) => boolean = () => false,
  ) {}

  /**
   * Counts a connection from `address`. Returns the key to `release` when it closes, `null` for an exempt
   * address (nothing to release), or `false` when the address already holds `cap` connections (nothing counted).
   */
  admit(address: string): string | null | false {
    if (this.exempt(address)) return null;
    const key = addressKey(address);
    const n = this.open.get(key) ?? 0;
    if (n >= this.cap) return false;
    this.open.set(key, n + 1);
    return key;
  }

  release(key: string): void {
    const n = this.open.get(key) ?? 0;
    // Keys with no connection are forgotten, so the map is as large as the addresses connected now.
    if (n <= 1) this.open.delete(key);
    else this.open.set(key, n - 1);
  }

  /** Connections counted for the address's key now. */
  count(address: string): number {
    return this.open.get(addressKey(address)) ?? 0;
  }

  /** Addresses (keys) holding a connection now. */
  get addresses(): number {
    return this.open.size;
  }
}
