/**
 * Checkpoints of the audit chain's head, without a store (src/engine/audit/checkpoint.ts, anchor-check.ts):
 * the signed bytes (the JCS of the checkpoint with its context, never confusable with a tree head), the
 * signature refused when any field or the key changes, and the judgement of a chain against a checkpoint: an
 * intact chain extends it, with the entries after it counted; a chain cut before the anchored entry, one that
 * holds it elsewhere or with another hash, does not, and the reason names the anchored entry. The walks oldest
 * and newest first locate the anchored entries at the same positions.
 */
import { randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { createSigner, generateKeyPair } from '../../../src/core/crypto/ed25519.js';
import { anchorLocator, judgeAnchors } from '../../../src/engine/audit/anchor-check.js';
import {
  anchorBroken,
  badCheckpointSignature,
  CHECKPOINT_CONTEXT,
  checkpointProblems,
  checkpointSignatureInput,
  signCheckpoint,
  type SignedAuditCheckpoint,
} from '../../../src/engine/audit/checkpoint.js';
import { entryHash, GENESIS_HASH, type AuditEntry } from '../../../src/engine/audit/entry.js';
import { verifyAuditChainNewestFirst } from '../../../src/engine/audit/verify.js';
import { keyIdOf } from '../../../src/core/log/tree-head.js';

const key = generateKeyPair();
const keyId = keyIdOf(key.publicKey);
const sign = createSigner(key.secretKey);

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
    entries.push({ ...e, entry_hash: entryHash(e) });
    prev = entryHash(e);
  }
  return entries;
}

const checkpointOf = (entries: AuditEntry[], size: number): SignedAuditCheckpoint => {
  const e = entries[size - 1] as AuditEntry;
  return signCheckpoint({ size, entry_id: e.id, entry_hash: e.entry_hash, timestamp: Date.UTC(2026, 0, 1, 1) }, sign, keyId);
};

async function* newestFirst(entries: AuditEntry[]): AsyncGenerator<AuditEntry[]> {
  const reversed = [...entries].reverse();
  for (let i = 0; i < reversed.length; i += 4) yield reversed.slice(i, i + 4);
}

describe('a signed checkpoint', () => {
  it('signs the UTF-8 of the JCS of {context, size, entry_id, entry_hash, timestamp}, which no tree head can be', () => {
    const c = { size: 3, entry_id: randomUUID(), entry_hash: 'a'.repeat(64), timestamp: 1767225600000 };
    const bytes = checkpointSignatureInput(c);
    expect(Buffer.from(bytes).toString('utf8')).toBe(canonicalize({ ...c, context: CHECKPOINT_CONTEXT }));
    // A tree head's signed bytes begin 0x00 0x01 (RFC 6962 §3.5); these begin with '{'.
    expect(bytes[0]).toBe(0x7b);
  });

  it('verifies under its key, and not once a field, the signature or the key differs', () => {
    const c = checkpointOf(chain(3), 3);
    expect(badCheckpointSignature(c, key.publicKey)).toBeNull();
    for (const altered of [
      { ...c, size: 2 },
      { ...c, entry_hash: 'b'.repeat(64) },
      { ...c, entry_id: randomUUID() },
      { ...c, timestamp: c.timestamp + 1 },
    ]) {
      expect(badCheckpointSignature(altered, key.publicKey)).toBe('its Ed25519 signature does not verify');
    }
    expect(badCheckpointSignature({ ...c, signature: 'not base64!' }, key.publicKey)).toMatch(/malformed|does not verify/);
    const other = generateKeyPair().publicKey;
    expect(badCheckpointSignature(c, other)).toContain(`it names key ${keyId}, not the key ${keyIdOf(other)}`);
  });

  it('names every missing or malformed field of a kept file', () => {
    expect(checkpointProblems(checkpointOf(chain(2), 2))).toEqual([]);
    expect(checkpointProblems([])).toEqual([{ field: 'checkpoint', message: 'must be a JSON object' }]);
    expect(checkpointProblems({ size: 0, entry_id: 'x', entry_hash: 'A'.repeat(64), timestamp: -1, key_id: 1 }).map((p) => p.field)).toEqual([
      'size',
      'entry_id',
      'entry_hash',
      'timestamp',
      'signature',
      'key_id',
    ]);
  });
});

describe('a chain judged against its checkpoints', () => {
  it('an intact chain extends its checkpoints; the entries after the last one are counted as not yet anchored', async () => {
    const entries = chain(10);
    const stored = checkpointOf(entries, 8);
    const kept = checkpointOf(entries, 5);
    const located = anchorLocator(stored, kept);
    const chainResult = await verifyAuditChainNewestFirst(newestFirst(entries), undefined, located);
    expect(located.get(stored.entry_id)).toEqual({ position: 8, entry_hash: stored.entry_hash });
    expect(located.get(kept.entry_id)).toEqual({ position: 5, entry_hash: kept.entry_hash });
    const { result, failures } = judgeAnchors(chainResult, { store: stored, kept }, located, key.publicKey);
    expect(failures).toEqual([]);
    expect(result).toMatchObject({
      valid: true,
      entries: 10,
      anchored: 8,
      unanchored: 2,
      anchor: { checkpoint: stored, signature_verified: true },
      kept: { signature_verified: true },
    });
    // No key at hand: the same verdict, the signatures said unchecked.
    expect(judgeAnchors(chainResult, { store: stored, kept: null }, located, null).result.anchor?.signature_verified).toBe(false);
  });

  it('a chain cut before the anchored entry fails, naming the entry and the entries cut', async () => {
    const entries = chain(10);
    const stored = checkpointOf(entries, 8);
    const cut = entries.slice(0, 6);
    const located = anchorLocator(stored, null);
    const chainResult = await verifyAuditChainNewestFirst(newestFirst(cut), undefined, located);
    expect(chainResult.valid).toBe(true);
    const { failures } = judgeAnchors(chainResult, { store: stored, kept: null }, located, key.publicKey);
    expect(failures).toEqual([
      `the chain ends at entry 6, but entry 8 (id ${stored.entry_id}, entry_hash ${stored.entry_hash}), which the newest checkpoint in the store ` +
        `signed at ${new Date(stored.timestamp).toISOString()} anchors, is missing: entries 7 to 8 were cut off its end`,
    ]);
  });

  it('an anchored entry elsewhere or with another hash fails; so does a forged checkpoint', () => {
    const c = checkpointOf(chain(4), 4);
    expect(anchorBroken(c, { position: 4, entry_hash: c.entry_hash }, 4, 'the kept checkpoint')).toBeNull();
    expect(anchorBroken(c, { position: 3, entry_hash: c.entry_hash }, 4, 'the kept checkpoint')).toContain(
      'is entry 3 of the chain: entries before it were removed or inserted',
    );
    expect(anchorBroken(c, { position: 4, entry_hash: 'f'.repeat(64) }, 4, 'the kept checkpoint')).toContain(`has entry_hash ${'f'.repeat(64)} in the chain`);
    expect(anchorBroken(c, null, 9, 'the kept checkpoint')).toContain('is not in the chain of 9 entries');
    const forged = { ...c, size: 3 };
    const { failures } = judgeAnchors(
      { valid: true, entries: 4, head: c.entry_hash, broken: null },
      { store: null, kept: forged },
      new Map([[c.entry_id, { position: 4, entry_hash: c.entry_hash }]]),
      key.publicKey,
    );
    expect(failures[0]).toBe(`the kept checkpoint, of entry 3 (id ${c.entry_id}), does not verify: its Ed25519 signature does not verify`);
  });
});
