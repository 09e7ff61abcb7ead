/**
 * Which inputs are id prefixes, and the UUID range each covers (PostgreSQL orders uuid values by their bytes,
 * which is the order of their hex text, so the range holds exactly the ids that start with the prefix).
 */
import { describe, expect, it } from 'vitest';
import { MIN_ID_PREFIX, prefixRange } from '../../src/cli/id-prefix.js';

describe('prefixRange', () => {
  it('covers every id starting with the prefix, hyphens as a UUID has them, any case', () => {
    expect(prefixRange('c77b2c39')).toEqual({ low: 'c77b2c39-0000-0000-0000-000000000000', high: 'c77b2c39-ffff-ffff-ffff-ffffffffffff' });
    expect(prefixRange('C77B2C39-4')).toEqual({ low: 'c77b2c39-4000-0000-0000-000000000000', high: 'c77b2c39-4fff-ffff-ffff-ffffffffffff' });
    expect(prefixRange('c77b2c39-')).toEqual(prefixRange('c77b2c39'));
    expect(prefixRange('abcd1234-0000-4000-8000-00000000000')).toEqual({
      low: 'abcd1234-0000-4000-8000-000000000000',
      high: 'abcd1234-0000-4000-8000-00000000000f',
    });
  });

  it('is null for a whole UUID, too few digits, a hyphen out of place or a non-hex character', () => {
    expect(prefixRange('c77b2c39-7425-40de-944b-e07fc1f90ae7')).toBeNull();
    expect(prefixRange('c'.repeat(MIN_ID_PREFIX - 1))).toBeNull();
    expect(prefixRange('c'.repeat(MIN_ID_PREFIX))).not.toBeNull();
    expect(prefixRange('c77b-2c39')).toBeNull();
    expect(prefixRange('0000-')).toBeNull();
    expect(prefixRange('c77g2c39')).toBeNull();
    expect(prefixRange('tse_abcdef')).toBeNull();
    expect(prefixRange('c77b2c3974254')).toBeNull(); // 13 digits with no hyphen: not how a UUID reads
  });
});
