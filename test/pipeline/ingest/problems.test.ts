/**
 * How problems reach the user: each rendered with its file, line, text and rule; one data_invalid error
 * per check whose detail counts problems by file and whose list is capped per file, so a garbage file
 * cannot print thousands of lines.
 */
import { describe, expect, it } from 'vitest';
import {
  dataInvalidError,
  describeProblem,
  problemField,
  PROBLEMS_LISTED_PER_FILE,
  summarizeProblems,
  type Problem,
} from '../../../pipeline/ingest/problems.js';

const problem = (file: string, line: number, over: Partial<Problem> = {}): Problem => ({
  file,
  line,
  subject: 'value',
  text: '-1',
  date: '2020-01-02',
  rule: 'out_of_bounds',
  message: 'VIXCLS must be ≥ 5 (VIX has never closed below 9.14)',
  ...over,
});

describe('describeProblem and problemField', () => {
  it.each<[string, Problem, string, string]>([
    ['a value', problem('VIXCLS.csv', 5000), 'VIXCLS.csv:5000', 'value "-1" on 2020-01-02: VIXCLS must be ≥ 5 (VIX has never closed below 9.14)'],
    [
      'a date (not repeated after it)',
      problem('DGS10.csv', 7, {
        subject: 'date',
        text: '2020-03-10',
        date: '2020-03-10',
        rule: 'date_order',
        message: 'comes after 2020-03-11 (line 6); dates must be strictly increasing',
      }),
      'DGS10.csv:7',
      'date "2020-03-10": comes after 2020-03-11 (line 6); dates must be strictly increasing',
    ],
    [
      'a header',
      problem('DTWEXB.csv', 1, {
        subject: 'header',
        text: 'date,value',
        date: null,
        rule: 'header',
        message: 'the fred_named layout\'s header is "date,DTWEXB"',
      }),
      'DTWEXB.csv:1',
      'header "date,value": the fred_named layout\'s header is "date,DTWEXB"',
    ],
    [
      'a file that cannot be read',
      problem('WALCL.csv', 0, { subject: 'file', text: '/x/WALCL.csv', date: null, rule: 'unreadable', message: 'cannot be read (ENOENT)' }),
      'WALCL.csv',
      'file "/x/WALCL.csv": cannot be read (ENOENT)',
    ],
  ])('%s', (_name, p, field, message) => {
    expect(problemField(p)).toBe(field);
    expect(describeProblem(p)).toBe(message);
  });
});

describe('dataInvalidError', () => {
  it('is one data_invalid error (exit 2) with one entry per problem and a detail naming the files', () => {
    const err = dataInvalidError([problem('WALCL.csv', 1032), problem('DGS10.csv', 7), problem('DGS10.csv', 9)], 'the data files in /d break their rules');
    expect(err.code).toBe('data_invalid');
    expect(err.exit).toBe(2);
    expect(err.message).toBe('the data files in /d break their rules: 3 problems in 2 files: WALCL.csv (1), DGS10.csv (2)');
    expect(err.errors?.map((e) => e.field)).toEqual(['WALCL.csv:1032', 'DGS10.csv:7', 'DGS10.csv:9']);
  });

  it('lists the first PROBLEMS_LISTED_PER_FILE of each file and counts the rest', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => problem('GSPC.csv', i + 2));
    const err = dataInvalidError([...many, problem('WALCL.csv', 1032)]);
    expect(PROBLEMS_LISTED_PER_FILE).toBe(50);
    expect(err.errors?.length).toBe(50 + 1 + 1);
    expect(err.errors?.[49]?.field).toBe('GSPC.csv:51');
    expect(err.errors?.[50]).toEqual({ field: 'GSPC.csv', message: '9950 more problems not listed (10000 in all)' });
    expect(err.errors?.[51]?.field).toBe('WALCL.csv:1032');
    expect(err.message).toContain('10001 problems in 2 files: GSPC.csv (10000), WALCL.csv (1)');
  });

  it('says "1 problem in FILE" for one', () => {
    expect(summarizeProblems([problem('WALCL.csv', 1032)])).toBe('1 problem in WALCL.csv');
  });
});
