/**
 * The one error table (src/core/errors.ts) is closed: every code the project can emit is a row of it with one
 * HTTP status and one exit code, every row is emitted somewhere (nothing documented that cannot happen), and
 * a failure that is not a `TradesealError` still leaves the CLI as a code of the table (`internal`, with
 * its message), under `--json` too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Config, Errors } from '@oclif/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TradesealCommand } from '../src/cli/base-command.js';
import { ERROR_CODES, TradesealError, isErrorCode } from '../src/core/errors.js';
import { REPO_ROOT } from './helpers/cli.js';

/** Every .ts file of the code that runs (not the tests). */
function sources(): Array<{ file: string; text: string }> {
  return ['src', 'pipeline', 'commands'].flatMap((dir) =>
    (fs.readdirSync(path.join(REPO_ROOT, dir), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.ts'))
      .map((f) => ({ file: path.join(dir, f), text: fs.readFileSync(path.join(REPO_ROOT, dir, f), 'utf8') })),
  );
}

describe('the error table', () => {
  const files = sources();

  it('holds every code the code base names where an error or a response body is made', () => {
    // `code: 'x'` in bodies and results, and the first argument of the error helpers and of deny().
    const patterns = [/\bcode: '([a-z_]+)'/g, /new (?:TradesealError|HmmError)\('([a-z_]+)'/g, /\b(?:conflict|forbidden|deny|denied)\('([a-z_]+)'/g];
    const outside: string[] = [];
    for (const { file, text } of files) {
      if (file === path.join('src', 'errors.ts')) continue;
      for (const p of patterns) for (const m of text.matchAll(p)) if (!isErrorCode(m[1])) outside.push(`${file}: ${m[1]}`);
    }
    expect(outside).toEqual([]);
  });

  it('has no row that nothing emits', () => {
    const all = files
      .filter((f) => f.file !== path.join('src', 'errors.ts'))
      .map((f) => f.text)
      .join('\n');
    // A code is emitted where it is named as a string, or through its helper (`unauthorized(...)`).
    const unused = Object.keys(ERROR_CODES).filter((code) => !all.includes(`'${code}'`) && !all.includes(`${code}(`));
    expect(unused).toEqual([]);
  });

  it('gives each code one status and one exit code, taken from the table and never from the throw site', () => {
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      const e = new TradesealError(code as keyof typeof ERROR_CODES, 'x');
      expect([e.status, e.exit]).toEqual([spec.status, spec.exit]);
      expect(spec.status).toBeGreaterThanOrEqual(400);
      expect(spec.exit).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('what an error carries for the log', () => {
  it('a fault (5xx) keeps the stack of where it was made; a refusal (4xx), an answer never logged, captures none', () => {
    const limit = Error.stackTraceLimit;
    const fault = new TradesealError('internal', 'the store broke');
    const refusal = new TradesealError('validation_failed', '1 invalid field: qty');
    expect(fault.stack).toMatch(/\n\s+at .*errors\.test\.ts/);
    expect(refusal.stack).not.toMatch(/\n\s+at /);
    expect([refusal.status, refusal.message, Error.stackTraceLimit]).toEqual([422, '1 invalid field: qty', limit]);
    // The limit is restored after a refusal: other errors made after it still carry their stack.
    expect(new Error('later').stack).toMatch(/\n\s+at /);
  });
});

describe('a failure outside the table, in the CLI', () => {
  class Boom extends TradesealCommand {
    static override summary = 'fails the way a bug would';
    async run(): Promise<void> {
      await this.parse(Boom);
      throw new RangeError('not enough history: 12 complete days');
    }
  }

  afterEach(() => vi.restoreAllMocks());

  async function runBoom(argv: string[]): Promise<{ exit: number | undefined; stdout: string; stderr: string }> {
    // The project's configuration without its command directory: only this test's command runs.
    const pjson = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    const config = await Config.load({ root: REPO_ROOT, ignoreManifest: true, pjson: { ...pjson, oclif: { ...pjson.oclif, commands: undefined, hooks: {} } } });
    let stdout = '';
    let stderr = '';
    // oclif prints through console.log / console.error.
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void (stdout += `${args.join(' ')}\n`));
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void (stderr += `${args.join(' ')}\n`));
    try {
      await Boom.run(argv, config);
      return { exit: 0, stdout, stderr };
    } catch (err) {
      return { exit: (err as Errors.CLIError).oclif?.exit, stdout, stderr: stderr + (err as Error).message };
    }
  }

  it('is `internal` with its message and exit 1, as JSON under --json', async () => {
    const r = await runBoom(['--json']);
    expect(r.exit).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      error: {
        code: 'internal',
        exit: 1,
        detail: 'RangeError: not enough history: 12 complete days',
        hint: expect.stringContaining('bug'),
      },
    });
  });

  it('is `internal` with its message and exit 1 as text', async () => {
    const r = await runBoom([]);
    expect(r.exit).toBe(1);
    expect(r.stderr).toContain('internal: RangeError: not enough history: 12 complete days');
  });
});
