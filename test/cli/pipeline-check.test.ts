/**
 * `tradeseal pipeline check`: validates the input files, then compares them with what the published history
 * was computed from (here a fresh store, where nothing is published; the comparison is tested in
 * test/pipeline/input-history.test.ts). Exit 0 with one line per file when all pass; otherwise data_invalid
 * (exit 2) with one line per problem, naming the file, the line, the value and the rule, as text and under
 * --json. Each of the four corruptions that used to be published is refused on its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, describeRun, runCli, tempHome } from '../helpers/cli.js';
import { CORRUPTIONS, corruptedCopy, DATA_DIR, type Corruption, type DataCopy } from '../pipeline/ingest/corruptions.js';

const env = cliEnv(tempHome());
const made: Corruption[] = CORRUPTIONS.map((make) => make());
const copies: DataCopy[] = [];

beforeAll(async () => {
  for (const c of made) copies.push(await corruptedCopy([c]));
});
afterAll(async () => {
  for (const c of copies) await c.remove();
});

describe('tradeseal pipeline check', () => {
  it('passes the bundled files with one line per file: rows, first and last date', async () => {
    const [text, json] = await Promise.all([
      // The first run creates the embedded store of the test's home (the check compares with what it publishes).
      runCli(['pipeline', 'check', '--data-dir', DATA_DIR], env, 120_000),
      runCli(['pipeline', 'check', '--data-dir', DATA_DIR, '--json'], env, 120_000),
    ]);
    expect(text.code, describeRun(text)).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines.length).toBe(15);
    expect(lines).toContainEqual(expect.stringMatching(/^GSPC\.csv\s+24777 rows {2}1927-12-30 to 2026-08-21$/));
    expect(lines).toContainEqual(expect.stringMatching(/^WALCL\.csv\s+1202 rows {2}2002-12-18 to 2025-12-24$/));
    expect(lines.at(-2)).toMatch(/^all 13 files in .* pass$/);
    expect(lines.at(-1)).toBe('nothing is published yet: nothing to compare with');
    expect(json.code, describeRun(json)).toBe(0);
    const files = json.json<{ files: Array<{ file: string; rows: number; first_date: string; last_date: string }> }>().files;
    expect(files.length).toBe(13);
    expect(json.json<{ published: unknown }>().published).toEqual({ status: 'nothing_published' });
    expect(files.find((f) => f.file === 'DTWEXB.csv')).toEqual({
      series: 'DTWEXB',
      file: 'DTWEXB.csv',
      rows: 6520,
      first_date: '1995-01-04',
      last_date: '2019-12-31',
    });
  }, 120_000);

  it.each(made.map((c, i) => [c.name, i] as const))(
    'refuses %s: exit 2, one line per problem',
    async (_name, i) => {
      const c = made[i] as Corruption;
      const dir = (copies[i] as DataCopy).dir;
      const [text, json] = await Promise.all([
        runCli(['pipeline', 'check', '--data-dir', dir], env),
        runCli(['pipeline', 'check', '--data-dir', dir, '--json'], env),
      ]);
      const n = c.expected.length;
      expect(text.code, describeRun(text)).toBe(2);
      expect(text.stderr).toContain(`data_invalid: the data files in ${dir} break their rules: ${n} problem${n === 1 ? '' : 's'} in ${c.file}`);
      const problemLines = text.stderr.split('\n').filter((l) => new RegExp(`${c.file.replace('.', '\\.')}:\\d+: `).test(l));
      expect(problemLines.length).toBe(Math.min(n, 50));
      c.expected.slice(0, 50).forEach((e, k) => {
        expect(problemLines[k]).toContain(`${c.file}:${e.line}: `);
        expect(problemLines[k]).toContain(`"${e.text}"`);
        expect(problemLines[k]).toContain(e.says);
      });
      if (n > 50) expect(text.stderr).toContain(`${c.file}: ${n - 50} more problem${n - 50 === 1 ? '' : 's'} not listed (${n} in all)`);

      expect(json.code, describeRun(json)).toBe(2);
      const { error } = json.json<{ error: { code: string; exit: number; errors: Array<{ field: string; message: string }> } }>();
      expect(error.code).toBe('data_invalid');
      expect(error.exit).toBe(2);
      expect(error.errors.length).toBe(n > 50 ? 51 : n);
      expect(error.errors[0]?.field).toBe(`${c.file}:${c.expected[0]?.line}`);
    },
    60_000,
  );

  it('names every file it cannot read', async () => {
    const r = await runCli(['pipeline', 'check', '--data-dir', `${DATA_DIR}/nowhere`, '--json'], env);
    expect(r.code, describeRun(r)).toBe(2);
    const { error } = r.json<{ error: { code: string; errors: Array<{ field: string; message: string }> } }>();
    expect(error.code).toBe('data_invalid');
    expect(error.errors.length).toBe(13);
    expect(error.errors[0]).toEqual({ field: 'WALCL.csv', message: expect.stringContaining('cannot be read (ENOENT)') });
  }, 60_000);
});
