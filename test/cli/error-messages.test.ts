/**
 * What an error says must be true and lead somewhere: the hint points at the document that has what it
 * names, a missing flag says what it is for, a suggestion is
 * close to what was typed, and only the real problems are listed, each once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, describeRun, runCli, tempHome } from '../helpers/cli.js';

const home = tempHome();
const env = cliEnv(home, undefined, { DATABASE_URL: undefined });

/** A file under the test's home. */
function file(name: string, text: string): string {
  const p = path.join(home, name);
  fs.writeFileSync(p, text);
  return p;
}

describe('error messages', () => {
  it('a DATABASE_URL that is not a URL: the hint names docs/operations.md, where the table of settings is', async () => {
    const r = await runCli(['engine', 'traces', 'list', '--json'], { ...env, DATABASE_URL: 'notaurl' });
    const { error } = r.json<{ error: { code: string; hint: string } }>();
    expect(error.code, describeRun(r)).toBe('config_invalid');
    expect(error.hint).toContain('docs/operations.md');
    expect(error.hint).not.toContain('README');
  }, 60_000);

  it('a missing required flag says what the flag is for', async () => {
    const r = await runCli(['quant', 'metrics', file('returns.csv', 'date,r\n2024-01-02,0.01\n'), '--json'], env);
    const { error } = r.json<{ error: { code: string; detail: string } }>();
    expect(error.code, describeRun(r)).toBe('usage_error');
    expect(error.detail).toContain('Missing required flag --returns: Column of simple returns per period (0.01 = 1 %)');
  }, 60_000);

  it('a mistyped command is offered a command only a slip away (`dmo` → `demo`), else the topics (`foo` is not `demo`)', async () => {
    const [far, near] = await Promise.all([runCli(['foo', '--json'], env), runCli(['dmo', '--json'], env)]);
    const hint = (r: typeof far): string => r.json<{ error: { hint: string } }>().error.hint;
    expect(far.code, describeRun(far)).toBe(2);
    expect(hint(far)).not.toContain('did you mean');
    expect(hint(far)).toMatch(/^every command starts with one of config, db, demo, engine, .*quant.*signals; `tradeseal help` lists the commands$/);
    expect(hint(near)).toBe('did you mean `tradeseal demo`?');
  }, 60_000);

  it('arima on a file whose first quote is never closed reports that, and not also an empty file', async () => {
    const r = await runCli(['quant', 'arima', file('unclosed.csv', '"date,value\n2024-01-02,1\n2024-01-03,2\n'), '--json'], env);
    const { error } = r.json<{ error: { code: string; detail: string; errors: Array<{ field: string; message: string }> } }>();
    expect(error.code, describeRun(r)).toBe('data_invalid');
    expect(error.detail).toContain('1 problem in unclosed.csv');
    expect(error.errors).toHaveLength(1);
    expect(error.errors[0]!.message).toMatch(/not CSV: Quote Not Closed/);
    expect(JSON.stringify(error.errors)).not.toContain('empty');
  }, 60_000);

  it('an error states each problem once: a bad setting is in the message, not again under it', async () => {
    const r = await runCli(['engine', 'traces', 'list'], { ...env, DATABASE_URL: 'notaurl', OCLIF_COLUMNS: '200' });
    expect(r.code, describeRun(r)).toBe(2);
    expect(r.stderr).toContain('config_invalid: invalid settings: DATABASE_URL=(value hidden) (expected postgres://user:pass@host:port/db)');
    expect(r.stderr.match(/DATABASE_URL/g), describeRun(r)).toHaveLength(1);
  }, 60_000);
});
