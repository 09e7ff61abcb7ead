/** The admission cache (src/signals/admission-cache.ts): per key and address, for its lifetime only. */
import { describe, expect, it } from 'vitest';
import { AdmissionCache } from '../../src/signals/admission-cache.js';
import type { KeyRecord } from '../../src/signals/store/keys.js';
import { TIERS, type Tier } from '../../src/signals/tiers.js';

const record = (tier: Tier): KeyRecord => ({
  key_id: `id-${tier}`, account_id: 'a', email: 'e@example.test', tier, agent_count: 0, key_prefix: 'rsk_abcdef', created_at: new Date(0), revoked_at: null,
});

describe('AdmissionCache', () => {
  it.each(TIERS)('%s is cached', (tier) => {
    const cache = new AdmissionCache(250, () => 0);
    cache.remember(`h-${tier}`, '127.0.0.1', record(tier));
    expect(cache.get(`h-${tier}`, '127.0.0.1')).toEqual(record(tier));
  });

  it('keeps an entry for its lifetime and its address only, and forgets a key at once when told', () => {
    const clock = { now: 1000 };
    const cache = new AdmissionCache(250, () => clock.now);
    cache.remember('one', '127.0.0.1', record('pro'));
    expect(cache.get('two', '127.0.0.1')).toBeNull();
    expect(cache.get('one', '127.0.0.2')).toBeNull();
    clock.now = 1249;
    expect(cache.get('one', '127.0.0.1')).not.toBeNull();
    clock.now = 1250;
    expect(cache.get('one', '127.0.0.1')).toBeNull();
    cache.remember('one', '127.0.0.1', record('pro'));
    cache.forget('one');
    expect(cache.get('one', '127.0.0.1')).toBeNull();
  });
});
