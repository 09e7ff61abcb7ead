/**
 * Verifying the whole audit chain, oldest first, a page at a time (memory stays flat however long the chain
 * is): each entry's `prev_hash` must be the `entry_hash` of the entry before it (`GENESIS_HASH` for the
 * first), and its `entry_hash` the SHA-256 of its JCS without `entry_hash`. The first entry that fails is
 * named with its position (1 = the oldest) and why; nothing after it is trusted, so the walk stops there.
 *
 * A chain proves that nothing before its head was changed, removed or inserted. It cannot tell that entries
 * were cut off its end: keep the `head` this reports somewhere else (a ticket, a signed report) and compare.
 */
import type { Sql } from 'postgres';
import { brokenLink, GENESIS_HASH } from './entry.js';
import { chainPage } from './store.js';

export const VERIFY_PAGE_SIZE = 2000;

export interface BrokenLink {
  /** 1-based position in the chain, oldest first. */
  position: number;
  id: string;
  at: string;
  action: string;
  reason: string;
}

export interface ChainVerification {
  valid: boolean;
  /** Entries checked (all of them when valid). */
  entries: number;
  /** The entry_hash of the newest entry checked; GENESIS_HASH for an empty chain. */
  head: string;
  broken: BrokenLink | null;
}

export interface VerifyOptions {
  pageSize?: number;
  /** Called after each page with the number of entries checked so far. */
  onProgress?: (checked: number) => void;
}

export async function verifyAuditChain(sql: Sql, options: VerifyOptions = {}): Promise<ChainVerification> {
  const pageSize = options.pageSize ?? VERIFY_PAGE_SIZE;
  let prevHash = GENESIS_HASH;
  let afterSeq = 0;
  let checked = 0;
  for (;;) {
    const page = await chainPage(sql, afterSeq, pageSize);
    for (const { seq, entry } of page) {
      const reason = brokenLink(entry, prevHash);
      if (reason !== null) {
        return { valid: false, entries: checked, head: prevHash, broken: { position: checked + 1, id: entry.id, at: entry.at, action: entry.action, reason } };
      }
      checked += 1;
      prevHash = entry.entry_hash;
      afterSeq = seq;
    }
    options.onProgress?.(checked);
    if (page.length < pageSize) return { valid: true, entries: checked, head: prevHash, broken: null };
  }
}
