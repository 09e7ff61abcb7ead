/** What the comparison ignores (run-dependent parts) and, as much, what it does not (every figure). */
import { describe, expect, it } from 'vitest';
import { comparable, mask } from '../../../scripts/docs/check/mask.js';

describe('mask', () => {
  it.each([
    ['a UUID', 'run 2e25716b-2057-42f7-ac29-de5bdc6b6d35 done', 'run <uuid> done'],
    ['an instant', 'published 2025-11-28T11:30:00.000Z', 'published <instant>'],
    ['an instant with an offset', 'generated 2026-11-27T16:23:47.475+00:00 (ARIMA)', 'generated <instant> (ARIMA)'],
    ['a duration in seconds', '228 refits in 27.9 s', '228 refits in <duration>'],
    ['a duration in milliseconds', 'took 850 ms', 'took <duration>'],
    ['minutes and seconds', 'in 1m 3s and 1 min 43 s', 'in <duration> and <duration>'],
    ['a long hex string', 'head 117147d99d20ba374bc3291933bfc60ffbb332065ebc7a8a49661196a9f0f265', 'head <hex>'],
    ['an engine token', 'token tse_3kF9xQ2mZ8', 'token <secret>'],
    ['a signal key and its shown prefix', 'rsk_Ab12Cd34 (rsk_Ab12…)', '<secret> (<secret>)'],
    ['a webhook secret', 'secret whsec_abcDEF123', 'secret <secret>'],
    ['a base64 signature', 'sig MEUCIQDx8n1Jz3J4k2YvQn0d7YbY+Wm2a9JmPp4Q3s7R8t1u2w==', 'sig <base64>'],
    ['a short id', 'tradeseal engine traces verify 36bf17a2', 'tradeseal engine traces verify <id>'],
    ['a short id of digits only, and one cut with …', 'alpha  12345678  MATCHED  fe4616b8…', 'alpha  <id>  MATCHED  <id>'],
    ['a port', 'listening on http://127.0.0.1:41234/v1', 'listening on http://127.0.0.1:<port>/v1'],
  ])('masks %s', (_, text, masked) => {
    expect(mask(text)).toBe(masked);
  });

  it.each([
    ['a Sharpe ratio', 'sharpe          0.781     0.849'],
    ['a date', '2025-11-26: recovery (confidence HIGH, 7 days so far)'],
    ['a long decimal fraction', '0.0000034712083602511793,1.6729149833867578e-12'],
    ['counts and percentages', '2239 trading days, 69 transitions, expansion 48.0%'],
    ['words and paths', 'bench/results/signal-latest.json PCA(4) of 8 standardized features'],
  ])('leaves %s as it is', (_, text) => {
    expect(mask(text)).toBe(text);
  });

  it('so a changed figure still differs after masking, and a changed id does not', () => {
    expect(mask('sharpe 0.781 in 12.0 s')).not.toBe(mask('sharpe 0.782 in 12.0 s'));
    expect(mask('run 2e25716b-2057-42f7-ac29-de5bdc6b6d35 in 12.0 s')).toBe(mask('run 437f379e-17cc-4b07-974e-8abd1632a710 in 9.1 s'));
  });
});

describe('comparable', () => {
  it('drops trailing spaces and trailing empty lines only', () => {
    expect(comparable(['a  ', '', ' b', '', ''])).toEqual(['a', '', ' b']);
  });
});
