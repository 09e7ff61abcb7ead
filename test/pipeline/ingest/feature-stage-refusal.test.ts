/**
 * The pipeline's feature stage validates every input file before it computes anything: each of the four
 * corruptions that used to be published (features, models and a flipped regime) now stops it with one
 * data_invalid error naming the file, the line, the value and the rule.
 */
import { describe, expect, it } from 'vitest';
import { loadFeatureFrame } from '../../../pipeline/features/frame.js';
import { TradesealError } from '../../../src/core/errors.js';
import { CORRUPTIONS, corruptedCopy } from './corruptions.js';

const refusal = async (dir: string): Promise<TradesealError> => {
  const err = await loadFeatureFrame(dir).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TradesealError);
  expect((err as TradesealError).code).toBe('data_invalid');
  return err as TradesealError;
};

describe('loadFeatureFrame on a corrupted copy of data/macro', () => {
  it.each(CORRUPTIONS.map((make) => [make().name, make] as const))(
    '%s alone stops it',
    async (_name, make) => {
      const c = make();
      const copy = await corruptedCopy([c]);
      try {
        const err = await refusal(copy.dir);
        expect(err.message).toBe(
          `the data files in ${copy.dir} break their rules: ${c.expected.length} problem${c.expected.length === 1 ? '' : 's'} in ${c.file}`,
        );
        const first = c.expected[0];
        expect(err.errors?.[0]?.field).toBe(`${c.file}:${first?.line}`);
        expect(err.errors?.[0]?.message).toContain(first?.says);
      } finally {
        await copy.remove();
      }
    },
    30_000,
  );

  it('all four at once: one error, every problem listed (at most 50 per file, the rest counted)', async () => {
    const copy = await corruptedCopy(CORRUPTIONS.map((make) => make()));
    try {
      const err = await refusal(copy.dir);
      expect(err.message).toContain('164 problems in 4 files: WALCL.csv (1), DGS10.csv (1), BAMLH0A0HYM2.csv (101), GSPC.csv (61)');
      const fields = err.errors?.map((e) => e.field) ?? [];
      expect(fields.filter((f) => f.startsWith('GSPC.csv:')).length).toBe(50);
      expect(fields.filter((f) => f.startsWith('BAMLH0A0HYM2.csv:')).length).toBe(50);
      expect(err.errors).toContainEqual({ field: 'GSPC.csv', message: '11 more problems not listed (61 in all)' });
      expect(err.errors).toContainEqual({ field: 'BAMLH0A0HYM2.csv', message: '51 more problems not listed (101 in all)' });
      expect(err.errors).toContainEqual({
        field: 'WALCL.csv:1032',
        message: 'value "-8832759.0" on 2022-09-14: WALCL must be ≥ 0 (a balance sheet is never negative)',
      });
    } finally {
      await copy.remove();
    }
  }, 30_000);
});
