/**
 * Appending several audit entries at once (`appendAuditMany`, src/engine/audit/append.ts): they are consecutive
 * links of the chain, in the order given, hashed as a third party recomputes them, even while other appends run
 * at the same time; they commit or roll back with the caller's transaction.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendAudit, appendAuditMany, type AuditInput } from '../../src/engine/audit/append.js';
import type { AuditEntry } from '../../src/engine/audit/entry.js';
import { verifyAuditChain } from '../../src/engine/audit/verify.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

const recompute = ({ entry_hash: _h, ...rest }: AuditEntry): string =>
  createHash('sha256')
    .update(canonicalize(rest) as string, 'utf8')
    .digest('hex');

let h: EngineHarness;
beforeAll(async () => {
  h = await engineHarness({ max: 20 });
});
afterAll(async () => h?.close());

const inputs = (tag: string, n: number): AuditInput[] =>
  Array.from({ length: n }, (_, i) => ({ actor: 'test', action: 'reconcile', target_id: null, details: { tag, i } }));

/** The stored entries of one tag, in chain order. */
async function stored(tag: string): Promise<Array<{ seq: number; id: string; prev_hash: string; entry_hash: string }>> {
  return h.store.sql`
    select seq::int, id, prev_hash, entry_hash from audit_log where details like ${`%"tag":"${tag}"%`} order by seq`;
}

describe('appendAuditMany', () => {
  it('appends consecutive linked entries, in the order given, among concurrent appends', async () => {
    const [batchA, batchB] = await Promise.all([
      appendAuditMany(h.store.sql, inputs('A', 50)),
      appendAuditMany(h.store.sql, inputs('B', 50)),
      ...Array.from({ length: 20 }, (_, i) => appendAudit(h.store.sql, { actor: 'test', action: 'reconcile', target_id: null, details: { tag: 'single', i } })),
    ]);
    for (const [tag, batch] of [
      ['A', batchA],
      ['B', batchB],
    ] as const) {
      expect(batch.map((e) => e.details)).toEqual(inputs(tag, 50).map((i) => i.details));
      for (let i = 1; i < batch.length; i++) expect(batch[i]?.prev_hash).toBe(batch[i - 1]?.entry_hash);
      for (const e of batch) expect(recompute(e)).toBe(e.entry_hash);
      const rows = await stored(tag);
      expect(rows.map((r) => r.id)).toEqual(batch.map((e) => e.id));
      expect(rows.at(-1)!.seq - rows[0]!.seq).toBe(49); // nothing else in between
    }
    expect(await verifyAuditChain(h.store.sql)).toMatchObject({ valid: true, broken: null });
  });

  it("appends nothing for no entries, and rolls back with the caller's transaction", async () => {
    expect(await appendAuditMany(h.store.sql, [])).toEqual([]);
    await expect(
      h.store.sql.begin(async (tx) => {
        await appendAuditMany(tx, inputs('C', 3));
        throw new Error('the action failed');
      }),
    ).rejects.toThrow('the action failed');
    expect(await stored('C')).toEqual([]);
  });
});
