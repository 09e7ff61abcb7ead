/**
 * Verifying the whole audit chain, oldest first, a page at a time (memory stays flat however long the chain
 * is): each entry's `prev_hash` must be the `entry_hash` of the entry before it (`GENESIS_HASH` for the
 * first), and its `entry_hash` the SHA-256 of its JCS without `entry_hash`. The first entry that fails is
 * named with its position (1 = the oldest) and why; nothing after it is trusted, so the walk stops there.
 *
 * A chain proves that nothing before its head was changed, removed or inserted. It cannot tell by itself that
 * entries were cut off its end: that is what signed checkpoints are for (./checkpoint.ts). Both walks locate
 * the entries checkpoints anchor (`locate`), so ./anchor-check.ts can tell whether the chain extends them.
 */
import type { Sql } from 'postgres';
import type { AnchoredEntryFound } from './checkpoint.js';
import { brokenLink, GENESIS_HASH, type AuditEntry } from './entry.js';
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
  /**
   * Entry ids to find (those checkpoints anchor): the walk sets each to where it found that entry, its
   * position and entry_hash, and leaves null the ones the chain does not hold.
   */
  locate?: Map<string, AnchoredEntryFound | null>;
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
      if (options.locate?.has(entry.id)) options.locate.set(entry.id, { position: checked, entry_hash: entry.entry_hash });
      prevHash = entry.entry_hash;
      afterSeq = seq;
    }
    options.onProgress?.(checked);
    if (page.length < pageSize) return { valid: true, entries: checked, head: prevHash, broken: null };
  }
}

interface Broken {
  entry: AuditEntry;
  fromNewest: number;
  reason: string;
  /** The entry_hash of the entry before it (GENESIS_HASH for the oldest). */
  prevHash: string;
}

/**
 * The same verdict from entries newest first (a remote engine serves its audit log so, a page at a time through
 * `before_id`): each entry's own hash is checked as it arrives, and its link once the entry before it arrives
 * (the oldest against GENESIS_HASH). The broken link named is still the oldest one, with its position counted
 * from the oldest, so the answer is the one `verifyAuditChain` gives on the store; memory stays flat.
 */
export async function verifyAuditChainNewestFirst(
  pages: AsyncIterable<AuditEntry[]>,
  onProgress?: (checked: number) => void,
  locate?: Map<string, AnchoredEntryFound | null>,
): Promise<ChainVerification> {
  /** The located entries, with their index counted from the newest (0-based) until the length is known. */
  const located = new Map<string, { fromNewest: number; entry_hash: string }>();
  let newest: AuditEntry | null = null;
  /** The entry whose link waits for the one before it. */
  let waiting: AuditEntry | null = null;
  let seen = 0;
  /** The oldest broken entry so far, with its index counted from the newest (0-based). */
  let broken: Broken | null = null;
  const judge = (entry: AuditEntry, fromNewest: number, prevHash: string): void => {
    const reason = brokenLink(entry, prevHash);
    if (reason !== null) broken = { entry, fromNewest, reason, prevHash };
  };
  for await (const page of pages) {
    for (const entry of page) {
      newest ??= entry;
      if (locate?.has(entry.id)) located.set(entry.id, { fromNewest: seen, entry_hash: entry.entry_hash });
      if (waiting) judge(waiting, seen - 1, entry.entry_hash);
      waiting = entry;
      seen += 1;
    }
    onProgress?.(seen);
  }
  if (waiting) judge(waiting, seen - 1, GENESIS_HASH);
  for (const [id, at] of located) locate?.set(id, { position: seen - at.fromNewest, entry_hash: at.entry_hash });
  const found = broken as Broken | null;
  if (!found) return { valid: true, entries: seen, head: newest?.entry_hash ?? GENESIS_HASH, broken: null };
  // The entries older than the broken one verified; the head is the newest of them.
  const position = seen - found.fromNewest;
  return {
    valid: false,
    entries: position - 1,
    head: found.prevHash,
    broken: { position, id: found.entry.id, at: found.entry.at, action: found.entry.action, reason: found.reason },
  };
}
