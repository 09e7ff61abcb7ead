/**
 * `npm test` (scripts/test.js) passes only when the typecheck, ESLint and Prettier's format check pass besides
 * the suite: a finding of any of them stops the suite and fails the run, with what the check found. Run here
 * in a checkout whose tools are stand-ins that record how they were called and exit as told.
 */
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

type Tool = 'tsc' | 'eslint' | 'prettier' | 'vitest';
/** An exit code, or `running`: the tool runs until it is stopped. */
type Outcome = number | 'running';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A checkout holding scripts/test.js, with each tool a stand-in that logs its arguments, prints a finding when it fails, and exits as `outcomes` says. */
function checkout(outcomes: Partial<Record<Tool, Outcome>>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tradeseal-npm-test-'));
  dirs.push(dir);
  mkdirSync(path.join(dir, 'scripts'));
  mkdirSync(path.join(dir, 'node_modules', '.bin'), { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }');
  copyFileSync(new URL('../../scripts/test.js', import.meta.url), path.join(dir, 'scripts', 'test.js'));
  for (const tool of ['tsc', 'eslint', 'prettier', 'vitest'] as const) {
    const outcome = outcomes[tool] ?? 0;
    const file = path.join(dir, 'node_modules', '.bin', tool);
    const ends = outcome === 'running' ? 'exec sleep 600' : outcome === 0 ? 'exit 0' : `echo 'src/a.ts:1:1 ${tool} finding'; exit ${outcome}`;
    writeFileSync(file, `#!/bin/sh\necho "${tool} $*" >> "${path.join(dir, 'calls.log')}"\n${ends}\n`);
    chmodSync(file, 0o755);
  }
  return dir;
}

function npmTest(dir: string, args: string[] = []): Promise<{ code: number; stderr: string; calls: string[] }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(dir, 'scripts', 'test.js'), ...args], { cwd: dir }, (error, _stdout, stderr) => {
      const calls = readFileSync(path.join(dir, 'calls.log'), 'utf8').trim().split('\n');
      resolve({ code: error ? Number(error.code) : 0, stderr, calls });
    });
  });
}

describe('npm test', () => {
  it('runs the typecheck, ESLint and the format check on the whole tree beside the suite, and passes when all pass', async () => {
    const { code, stderr, calls } = await npmTest(checkout({}), ['test/engine']);
    expect(code).toBe(0);
    expect(stderr).toContain('the typecheck and the lint passed; the tests passed');
    expect(calls).toContain('vitest run test/engine');
    const checks = calls.filter((c) => !c.startsWith('vitest'));
    expect(checks.map((c) => c.split(' ')[0])).toEqual(['tsc', 'eslint', 'prettier']);
    expect(checks[0]).toContain('--noEmit');
    expect(checks[1]).toMatch(/--max-warnings 0 .* \.$/);
    expect(checks[2]).toMatch(/^prettier --check .* \.$/);
  });

  it.each([
    ['tsc', 'the typecheck'],
    ['eslint', 'ESLint'],
    ['prettier', 'the format check'],
  ] as const)('fails when %s finds something: the suite is stopped and the finding printed', async (tool, name) => {
    const { code, stderr } = await npmTest(checkout({ [tool]: 1, vitest: 'running' }));
    expect(code).toBe(1);
    expect(stderr).toContain(`src/a.ts:1:1 ${tool} finding`);
    expect(stderr).toContain(`npm test: ${name} failed (${tool} exit 1); the tests were stopped.`);
  });

  it('fails when the suite fails, after the checks passed', async () => {
    const { code, stderr } = await npmTest(checkout({ vitest: 3 }));
    expect(code).toBe(3);
    expect(stderr).toContain('the typecheck and the lint passed; the tests failed (vitest exit 3)');
  });
});
