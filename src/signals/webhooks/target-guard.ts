/**
 * The webhook target guard: which URLs a webhook may point at, checked when a customer sets the URL and again
 * before every delivery (a name's DNS answer can change between the two).
 *
 * A URL must be http:// or https:// with a host. Unless WEBHOOK_ALLOW_PRIVATE is on, its host must not be,
 * or resolve to, a refused address (addresses.ts: loopback, private, link-local, unspecified, CGNAT, cloud
 * metadata, multicast, reserved): an IP literal is judged as it is, a name by EVERY address it resolves to
 * (one bad address refuses the name), and a few names are refused before any lookup (`localhost` and its
 * subdomains, RFC 6761; the metadata services' names). Numeric host forms (`http://2130706433/`,
 * `http://0177.0.0.1/`, `http://127.1/`) and trailing dots are normalised by the WHATWG URL parser before
 * the check, so they are judged as the address they denote.
 *
 * Checking a name and then letting the HTTP client resolve it again would let a hostile DNS server answer
 * a public address to the check and a private one to the connection (DNS rebinding). So the check returns
 * the addresses it approved, and `pinnedLookup` hands exactly those to the socket: the connection goes to an
 * address that was checked, while the Host header and TLS server name stay the URL's name.
 */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { TradesealError } from '../../core/errors.js';
import { classifyAddress, CLASS_WORDS } from './addresses.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a name resolves to; the system resolver (getaddrinfo, so /etc/hosts too) by default. */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolve: Resolve = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** Names refused before any lookup (compared without a trailing dot, lower case). */
const REFUSED_NAMES: ReadonlyArray<{ name: string; subdomains: boolean; why: string }> = [
  { name: 'localhost', subdomains: true, why: 'a loopback name (RFC 6761)' },
  { name: 'metadata.google.internal', subdomains: false, why: 'a cloud metadata service name' },
  { name: 'metadata.goog', subdomains: false, why: 'a cloud metadata service name' },
  { name: 'metadata', subdomains: false, why: 'a cloud metadata service name' },
  { name: 'instance-data.ec2.internal', subdomains: false, why: 'a cloud metadata service name' },
];

export interface GuardOptions {
  /** WEBHOOK_ALLOW_PRIVATE: skip the address checks (a receiver on the operator's own network). */
  allowPrivate: boolean;
  resolve?: Resolve;
}

/** A URL that passed the guard, with the addresses a connection to it may use. */
export interface CheckedTarget {
  url: URL;
  /** The host without IPv6 brackets or a trailing dot. */
  hostname: string;
  /** The approved addresses; one entry, the literal itself, when the host is an IP address. */
  addresses: ResolvedAddress[];
}

/** Why a target is refused, as the 422 `webhook_target_refused` naming the field `url`. */
export const targetRefused = (message: string): TradesealError =>
  new TradesealError('webhook_target_refused', `the webhook URL is refused: ${message}`, {
    errors: [{ field: 'url', message }],
    hint: 'point the webhook at a public http(s) address; an operator whose receivers are on a private network sets WEBHOOK_ALLOW_PRIVATE=true',
  });

/** Parses and checks the form of a webhook URL (no network): http(s) with a host. Returns the parsed URL. */
export function parseTargetUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw targetRefused('must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw targetRefused(`the scheme ${url.protocol} is not allowed; use http:// or https://`);
  if (bareHost(url) === '') throw targetRefused('the URL has no host');
  return url;
}

/** The URL's host without IPv6 brackets, trailing dots or upper case. */
const bareHost = (url: URL): string =>
  url.hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.+$/, '')
    .toLowerCase();

function refusedName(host: string): string | null {
  for (const n of REFUSED_NAMES) if (host === n.name || (n.subdomains && host.endsWith(`.${n.name}`))) return n.why;
  return null;
}

function refuseAddress(host: string, address: string): void {
  const cls = classifyAddress(address);
  if (cls === null) return;
  throw targetRefused(address === host ? `${address} is ${CLASS_WORDS[cls]}` : `${host} resolves to ${address}, ${CLASS_WORDS[cls]}`);
}

/**
 * Parses `text`, resolves its host once and checks every address (unless `allowPrivate`). Throws
 * `webhook_target_refused` naming `url`; a name that does not resolve is refused too (nothing to check).
 */
export async function checkTarget(text: string, options: GuardOptions): Promise<CheckedTarget> {
  const url = parseTargetUrl(text);
  const hostname = bareHost(url);
  const family = isIP(hostname);
  if (family !== 0) {
    if (!options.allowPrivate) refuseAddress(hostname, hostname);
    return { url, hostname, addresses: [{ address: hostname, family: family === 6 ? 6 : 4 }] };
  }
  if (!options.allowPrivate) {
    const why = refusedName(hostname);
    if (why) throw targetRefused(`${hostname} is ${why}`);
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await (options.resolve ?? systemResolve)(hostname);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw targetRefused(`${hostname} does not resolve${code ? ` (${code})` : ''}`);
  }
  if (addresses.length === 0) throw targetRefused(`${hostname} does not resolve to any address`);
  if (!options.allowPrivate) for (const a of addresses) refuseAddress(hostname, a.address);
  return { url, hostname, addresses };
}

/**
 * A socket `lookup` that answers only the approved addresses, whatever the name: given to `http.request`,
 * it makes the connection use what `checkTarget` checked (no second DNS query to rebind). Honours the
 * family and `all` the socket asks for (Node's happy-eyeballs connection asks for all).
 */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    if (wanted.length === 0) {
      const err: NodeJS.ErrnoException = new Error(`no approved ${options.family === 6 ? 'IPv6' : 'IPv4'} address for ${hostname}`);
      err.code = 'ENOTFOUND';
      callback(err, '', undefined);
      return;
    }
    if (options.all)
      callback(
        null,
        wanted.map((a) => ({ address: a.address, family: a.family })),
      );
    else callback(null, wanted[0]!.address, wanted[0]!.family);
  };
}
