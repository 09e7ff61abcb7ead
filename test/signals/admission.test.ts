/**
 * Admitting keyed requests, against real Postgres: the rolling 24-hour window counts exactly under
 * concurrency (N left: N + 20 concurrent requests give N admissions and 20 refusals), a revoked key is
 * refused as revoked, an unknown one as unknown, and the IP lock refuses a second address while the first one's
 * use is under 15 minutes old.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admit, issueKey } from '../../src/signals/store/keys.js';
import { TIER_SPECS, type Tier } from '../../src/signals/tiers.js';
import { testStore, type TestStore } from '../helpers/db.js';

let store: TestStore;
beforeAll(async () => {
  store = await testStore({ max: 30 });
});
afterAll(async () => store?.close());

async function account(tier: Tier): Promise<string> {
  const id = randomUUID();
  await store.sql`insert into signal_accounts (account_id, email, tier) values (${id}, ${`${id}@example.test`}, ${tier})`;
  return (await issueKey(store.sql, id)).api_key;
}

describe('admit', () => {
  it("admits exactly the requests left in a free key's window, however many arrive at once", async () => {
    const key = await account('free');
    const limit = TIER_SPECS.free.dailyLimit!;
    // Use 10 of the 50 first, one by one.
    for (let i = 0; i < 10; i++) expect((await admit(store.sql, key, '127.0.0.1')).ok).toBe(true);
    const left = limit - 10;
    const results = await Promise.all(Array.from({ length: left + 20 }, () => admit(store.sql, key, '127.0.0.1')));
    expect(results.filter((r) => r.ok)).toHaveLength(left);
    const refused = results.filter((r) => !r.ok);
    expect(refused).toHaveLength(20);
    for (const r of refused) expect(r).toMatchObject({ why: 'rate_limited', limit });
    const remaining = results.flatMap((r) => (r.ok ? [r.remaining] : [])).sort((a, b) => a! - b!);
    expect(remaining).toEqual(Array.from({ length: left }, (_, i) => i));
  });

  it('does not count an unlimited tier, and tells unknown and revoked keys apart', async () => {
    const key = await account('pro');
    const r = await admit(store.sql, key, '127.0.0.1');
    expect(r).toMatchObject({ ok: true, limit: null, remaining: null });
    expect(await admit(store.sql, 'rsk_nobody', '127.0.0.1')).toEqual({ ok: false, why: 'unknown' });
    await store.sql`update signal_keys set revoked_at = now() where key_hash = encode(sha256(${key}::bytea), 'hex')`;
    expect(await admit(store.sql, key, '127.0.0.1')).toMatchObject({ ok: false, why: 'revoked' });
  });

  it('locks a free, starter or pro key to the address that used it within 15 minutes; engine keys are not locked', async () => {
    const key = await account('starter');
    expect((await admit(store.sql, key, '127.0.0.1')).ok).toBe(true);
    const other = await admit(store.sql, key, '127.0.0.2');
    expect(other).toMatchObject({ ok: false, why: 'ip_locked' });
    if (!other.ok && other.why === 'ip_locked') expect(other.unlocks_at.getTime()).toBeGreaterThan(Date.now() + 14 * 60_000);
    expect((await admit(store.sql, key, '127.0.0.1')).ok).toBe(true);
    // 15 minutes without use lift it.
    await store.sql`update signal_keys set last_used_at = now() - interval '15 minutes 1 second' where key_hash = encode(sha256(${key}::bytea), 'hex')`;
    expect((await admit(store.sql, key, '127.0.0.2')).ok).toBe(true);
    expect(await admit(store.sql, key, '127.0.0.1')).toMatchObject({ ok: false, why: 'ip_locked' });

    const engine = await account('engine_sidecar');
    expect((await admit(store.sql, engine, '127.0.0.1')).ok).toBe(true);
    expect((await admit(store.sql, engine, '127.0.0.2')).ok).toBe(true);
  });
});
