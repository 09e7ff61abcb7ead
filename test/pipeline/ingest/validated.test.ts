/**
 * The remembered validator (pipeline/ingest/validated.ts): the same text of a series is validated once, and any
 * change of the text, however small, is validated anew (a file that went bad is never passed on an old report).
 */
import { describe, expect, it } from 'vitest';
import { seriesSpec } from '../../../pipeline/ingest/catalogue.js';
import { validateSeriesTextOnce } from '../../../pipeline/ingest/validated.js';

const rows = ['2020-01-02,1.88', '2020-01-03,1.8', '2020-01-06,1.81'];
const file = (body: string[]): string => ['date,value', ...body, ''].join('\n');

describe('validating a series text it saw last', () => {
  it('answers the same report again, frozen; a changed text or another spec is validated anew', () => {
    const spec = seriesSpec('DGS10');
    const first = validateSeriesTextOnce(spec, file(rows));
    expect(first).toMatchObject({ rows: 3, lastDate: '2020-01-06', problems: [] });
    expect(validateSeriesTextOnce(spec, file(rows))).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.problems)).toBe(true);

    // One byte changed: the value is no number any more, and the report says so.
    const bad = validateSeriesTextOnce(spec, file([...rows.slice(0, 2), '2020-01-06,1.8l']));
    expect(bad.problems.map((p) => [p.line, p.rule, p.text])).toEqual([[4, 'not_a_number', '1.8l']]);
    // Back to the good text: validated again (only the last text of a series is kept), still clean.
    expect(validateSeriesTextOnce(spec, file(rows)).problems).toEqual([]);

    // A spec of other rules (another object, even of the same id) does not take this one's report.
    const strict = { ...spec, bounds: { ...spec.bounds, max: 1.85 } };
    expect(validateSeriesTextOnce(strict, file(rows)).problems.map((p) => [p.line, p.rule])).toEqual([[2, 'out_of_bounds']]);
  });
});
