/**
 * Verifying the audit chain from entries served newest first (a remote engine's pages) gives the verdict of the
 * walk oldest first over the store: the same validity, the same oldest broken link with its position from the
 * oldest, the same count of entries verified before it and the same head, for intact and tampered chains.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { brokenLink, entryHash, GENESIS_HASH, type AuditEntry } from '../../../src/engine/audit/entry.js';
import { verifyAuditChainNewestFirst, type ChainVerification } from '../../../src/engine/audit/verify.js';

function chain(n: number): AuditEntry[] {
  const entries: AuditEntry[] = [];
  let prev = GENESIS_HASH;
  for (let i = 0; i < n; i++) {
    const e = {
      id: randomUUID(),
      at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      actor: 'test',
      action: 'reconcile' as const,
      target_id: null,
      details: { i },
      prev_hash: prev,
    };
    const full = { ...e, entry_hash: entryHash(e) };
    entries.push(full);
    prev = full.entry_hash;
  }
  return entries;
}

/** The oldest-first walk of src/engine/audit/verify.ts, over an array. */
function oldestFirst(entries: AuditEntry[]): ChainVerification {
  let prev = GENESIS_HASH;
  for (const [i, entry] of entries.entries()) {
    const reason = brokenLink(entry, prev);
    if (reason) return { valid: false, entries: i, head: prev, broken: { position: i + 1, id: entry.id, at: entry.at, action: entry.action, reason } };
    prev = entry.entry_hash;
  }
  return { valid: true, entries: entries.length, head: prev, broken: null };
}

async function* pagesNewestFirst(entries: AuditEntry[], size: number): AsyncGenerator<AuditEntry[]> {
  const newest = [...entries].reverse();
  for (let i = 0; i < newest.length; i += size) yield newest.slice(i, i + size);
}

const both = async (entries: AuditEntry[], size = 3): Promise<[ChainVerification, ChainVerification]> => [
  await verifyAuditChainNewestFirst(pagesNewestFirst(entries, size)),
  oldestFirst(entries),
];

describe('audit chain verified newest first', () => {
  it('an intact chain: valid, every entry, the newest hash as head; an empty one: GENESIS', async () => {
    const entries = chain(10);
    const [there, here] = await both(entries);
    expect(there).toEqual(here);
    expect(there).toMatchObject({ valid: true, entries: 10, head: entries[9]!.entry_hash });
    expect(await verifyAuditChainNewestFirst(pagesNewestFirst([], 3))).toEqual({ valid: true, entries: 0, head: GENESIS_HASH, broken: null });
  });

  it.each([0, 1, 4, 9])('an edited entry %i: the same broken link, position and head', async (k) => {
    const entries = chain(10);
    entries[k] = { ...entries[k]!, details: { i: 99 } };
    const [there, here] = await both(entries);
    expect(there).toEqual(here);
    expect(there.broken?.position).toBe(k + 1);
  });

  it.each([0, 3, 9])('a removed entry %i: the link of the one after it breaks (none when the newest goes)', async (k) => {
    const entries = chain(10);
    entries.splice(k, 1);
    const [there, here] = await both(entries, 4);
    expect(there).toEqual(here);
  });

  it('two tampered entries: the oldest is named, whatever the page size', async () => {
    const entries = chain(12);
    entries[7] = { ...entries[7]!, actor: 'intruder' };
    entries[2] = { ...entries[2]!, prev_hash: 'f'.repeat(64) };
    for (const size of [1, 5, 1000]) {
      const [there, here] = await both(entries, size);
      expect(there).toEqual(here);
      expect(there.broken?.position).toBe(3);
    }
  });
});
