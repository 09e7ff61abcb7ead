/**
 * How many server processes `tradeseal serve` runs: `--workers`, else SERVE_WORKERS, else the default rule
 * below; the embedded store always takes one. The embedded store (PGlite) is one process with one session,
 * owned by the one server that opened it, so more than one worker on it is a usage error rather than a silent
 * 1: an operator who asks for N processes learns at once why they would not get them.
 *
 * The default rule: one worker per core when PostgreSQL runs elsewhere; half the cores (at least one) when
 * DATABASE_URL names this host (a loopback address, a Unix socket, this host's name or one of its addresses),
 * since PostgreSQL then needs cores of its own: it spends about 0.4 ms of CPU for every 0.6 ms the server spends
 * on an authorize (docs/benchmarks.md, "The engine"). On 2 cores with PostgreSQL beside it, a second worker
 * takes CPU from PostgreSQL: measured there, one worker served more authorizes than two, and as many binds.
 */
import os from 'node:os';
import type { Config } from '../../core/config.js';
import { TradesealError } from '../../core/errors.js';

/** What the default rule reads of the machine (tests pass their own). */
export interface HostFacts {
  cores: number;
  hostname: string;
  /** The addresses of this host's interfaces. */
  addresses: readonly string[];
}

export function thisHost(): HostFacts {
  return { cores: os.availableParallelism(), hostname: os.hostname(), addresses: interfaceAddresses() };
}

/** The addresses of this host's interfaces; none where the system will not list them (some sandboxes refuse). */
function interfaceAddresses(): string[] {
  try {
    return Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
  } catch {
    return [];
  }
}

/** Whether a PostgreSQL URL names this host: no host (a Unix socket), a loopback address, or this host's name or address. */
export function databaseOnThisHost(databaseUrl: string, host: HostFacts): boolean {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return false;
  }
  // `?host=/run/postgresql` (libpq's form of a socket directory) or no host at all: a Unix socket.
  const socket = url.searchParams.get('host');
  if (socket?.startsWith('/')) return true;
  const name = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (name === '' || name === 'localhost' || name.endsWith('.localhost') || name === '::1' || /^127\./.test(name)) return true;
  return name === host.hostname.toLowerCase() || host.addresses.some((a) => a.toLowerCase() === name);
}

/** The default worker count where `databaseUrl` is served (see the rule above). */
export function defaultWorkers(databaseUrl: string, host: HostFacts): number {
  return databaseOnThisHost(databaseUrl, host) ? Math.max(1, Math.floor(host.cores / 2)) : host.cores;
}

export function serveWorkers(flag: number | undefined, config: Pick<Config, 'serveWorkers' | 'databaseUrl'>, host: HostFacts = thisHost()): number {
  const asked = flag ?? config.serveWorkers;
  if (config.databaseUrl === null) {
    if (asked !== null && asked > 1) {
      const source = flag !== undefined ? `--workers ${flag}` : `SERVE_WORKERS=${asked}`;
      throw new TradesealError('usage_error', `${source} needs DATABASE_URL: the embedded store (PGlite, no DATABASE_URL) is served by one process`, {
        hint: 'set DATABASE_URL to a Postgres server to run several workers, or serve the embedded store with --workers 1',
      });
    }
    return 1;
  }
  return asked ?? defaultWorkers(config.databaseUrl, host);
}
