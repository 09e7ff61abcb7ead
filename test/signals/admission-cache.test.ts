/**
 * The admission cache (src/signals/admission-cache.ts): per key and address, for its lifetime only, and never
 * written back with what the store said before a change that has since been applied (each interleaving of a
 * lookup's store read with a change, step by step).
 */
import { describe, expect, it } from 'vitest';
import { AdmissionCache } from '../../src/signals/admission-cache.js';
import type { KeyRecord } from '../../src/signals/store/keys.js';
import { TIERS, type Tier } from '../../src/signals/tiers.js';

const record = (tier: Tier, over: Partial<KeyRecord> = {}): KeyRecord => ({
  key_id: `id-${tier}`,
  account_id: 'a',
  email: 'e@example.test',
  tier,
  agent_count: 0,
  key_prefix: 'rsk_abcdef',
  created_at: new Date(0),
  revoked_at: null,
  ...over,
});

describe('AdmissionCache', () => {
  it.each(TIERS)('%s is cached', (tier) => {
    const cache = new AdmissionCache(250, () => 0);
    cache.remember(`h-${tier}`, '127.0.0.1', record(tier), cache.ticket());
    expect(cache.get(`h-${tier}`, '127.0.0.1')).toEqual(record(tier));
  });

  it('keeps an entry for its lifetime from the start of the read that made it, for its address only, and forgets a key at once when told', () => {
    const clock = { now: 1000 };
    const cache = new AdmissionCache(250, () => clock.now);
    const ticket = cache.ticket();
    clock.now = 1040; // the store read took 40 ms
    cache.remember('one', '127.0.0.1', record('pro'), ticket);
    expect(cache.get('two', '127.0.0.1')).toBeNull();
    expect(cache.get('one', '127.0.0.2')).toBeNull();
    clock.now = 1249;
    expect(cache.get('one', '127.0.0.1')).not.toBeNull();
    clock.now = 1250;
    expect(cache.get('one', '127.0.0.1')).toBeNull();
    cache.remember('one', '127.0.0.1', record('pro'), cache.ticket());
    cache.forgetWhere((key) => key.key_id === 'id-pro');
    expect(cache.get('one', '127.0.0.1')).toBeNull();
  });

  it('a read begun before a change is not remembered after it: ticket, change, remember', () => {
    const cache = new AdmissionCache(250, () => 0);
    const ticket = cache.ticket(); // the lookup is about to ask the store
    cache.forgetWhere((key) => key.key_id === 'id-pro'); // a rotation committed and was applied meanwhile
    cache.remember('one', '127.0.0.1', record('pro'), ticket); // the store's answer, from before the rotation
    expect(cache.get('one', '127.0.0.1')).toBeNull();
  });

  it('a change voids every ticket taken before it, whatever key it names (one counter for all changes)', () => {
    const cache = new AdmissionCache(250, () => 0);
    const ticket = cache.ticket();
    cache.forgetWhere((key) => key.account_id === 'another account');
    cache.remember('one', '127.0.0.1', record('pro'), ticket);
    expect(cache.get('one', '127.0.0.1')).toBeNull();
  });

  it('a read begun after the change is remembered: change, ticket, remember', () => {
    const cache = new AdmissionCache(250, () => 0);
    cache.forgetWhere(() => true);
    cache.remember('one', '127.0.0.1', record('pro'), cache.ticket());
    expect(cache.get('one', '127.0.0.1')).toEqual(record('pro'));
  });

  it('an entry remembered before the change is dropped by it: ticket, remember, change', () => {
    const cache = new AdmissionCache(250, () => 0);
    cache.remember('one', '127.0.0.1', record('pro'), cache.ticket());
    cache.remember('two', '127.0.0.1', record('pro', { key_id: 'other', account_id: 'b' }), cache.ticket());
    cache.forgetWhere((key) => key.account_id === 'a');
    expect(cache.get('one', '127.0.0.1')).toBeNull();
    expect(cache.get('two', '127.0.0.1')).not.toBeNull();
  });
});
