/**
 * Connections refused by the acceptor, recorded without letting a peer that connects and closes in a loop fill
 * the store and hold the audit chain's lock: within a window (`REFUSAL_WINDOW_MS`), the first refusal of each peer
 * address (an IPv6 address by its /64, as the HTTP caps count) and kind is recorded in full; the others are only
 * counted, and at the window's end each count is recorded once, as one refusal saying how many there were and
 * between which instants. Nothing is dropped: every refusal is either recorded or counted in a record.
 *
 * At most `MAX_TALLIED_ADDRESSES` addresses are told apart in a window; refusals from any other are counted
 * under `*` (the first of them recorded in full too), so a window costs at most about twice that many records
 * whatever the number of addresses. Pure: the runner calls `note` for each refusal and `drain` at each window's end.
 */
import { addressKey } from '../../core/net/address-count.js';

export const REFUSAL_WINDOW_MS = 60_000;
export const MAX_TALLIED_ADDRESSES = 100;

/** What a connection was refused for, without its details (which differ from one refusal to the next). */
export type RefusalKind = 'not_allowed' | 'over_cap' | 'no_logon' | 'not_fix' | 'not_a_logon' | 'other_compids' | 'session_running' | 'logon_not_completed';

/** The refusals of one address and kind counted and not recorded in full within a window. */
export interface CountedRefusals {
  address: string;
  kind: RefusalKind;
  count: number;
  first: Date;
  last: Date;
}

export class RefusalTally {
  private readonly seen = new Map<string, CountedRefusals>();
  private addresses = new Set<string>();

  /** True when the refusal is the first of its address and kind in this window (record it in full); else it is counted. */
  note(address: string, kind: RefusalKind, at: Date): boolean {
    let key = addressKey(address);
    if (!this.addresses.has(key)) {
      if (this.addresses.size >= MAX_TALLIED_ADDRESSES) key = '*';
      else this.addresses.add(key);
    }
    const id = `${key} ${kind}`;
    const entry = this.seen.get(id);
    if (entry === undefined) {
      this.seen.set(id, { address: key, kind, count: 0, first: at, last: at });
      return true;
    }
    if (entry.count === 0) entry.first = at;
    entry.count += 1;
    entry.last = at;
    return false;
  }

  /** The counts of this window (those not zero), one per address and kind; a new window starts. */
  drain(): CountedRefusals[] {
    const counted = [...this.seen.values()].filter((c) => c.count > 0);
    this.seen.clear();
    this.addresses = new Set();
    return counted;
  }
}

/** The text of the record of a count. */
export function countedReason(c: CountedRefusals): string {
  return `Logon refused (${c.address}): ${c.count} more connection(s) refused (${c.kind}) from ${c.first.toISOString()} to ${c.last.toISOString()}, not recorded individually`;
}
