#!/usr/bin/env node
// `npm test`: the checks (the typecheck `tsc --noEmit`, then the lint: ESLint and Prettier's format check, what
// `npm run lint` runs) and the suite (`vitest run`, with any arguments given) at once, since the checks need one
// core for some 40 s while the suite starts its servers and stores. Exits 0 only when all pass. A failing check
// stops the suite at once, as the checks coming first would have: the code under test does not compile, or
// breaks a lint rule or the format, as written.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

/**
 * One after another, on one core; the caches (node_modules/.cache: tsc's build info, ESLint's and Prettier's caches)
 * make a second run check only what changed (the typecheck: 6 s of CPU instead of 25).
 */
const CHECKS = [
  {
    name: 'the typecheck',
    command: 'tsc',
    args: ['-p', 'tsconfig.json', '--noEmit', '--pretty', 'false', '--incremental', '--tsBuildInfoFile', 'node_modules/.cache/tsc/tsbuildinfo'],
  },
  {
    name: 'ESLint',
    command: 'eslint',
    args: ['--max-warnings', '0', '--cache', '--cache-strategy', 'content', '--cache-location', 'node_modules/.cache/eslint/', '.'],
  },
  { name: 'the format check', command: 'prettier', args: ['--check', '--cache', '--cache-strategy', 'content', '--log-level', 'warn', '.'] },
];

/** The exit code of `child` once it ended (`event`: 'close' also waits for its output); 127 when it could not start. */
const exited = (child, event = 'exit') =>
  new Promise((resolve) => {
    child.once('error', () => resolve(127));
    child.once(event, (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });

/** Runs a check with its output kept, to print only when it fails. */
async function check({ command, args }) {
  const child = spawn(bin(command), args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  child.once('error', (error) => (output += `${error.message}\n`));
  return { code: await exited(child, 'close'), output };
}

const vitest = spawn(bin('vitest'), ['run', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
const suite = exited(vitest);

for (const c of CHECKS) {
  const { code, output } = await check(c);
  if (code !== 0) {
    vitest.kill('SIGTERM');
    await suite;
    process.stderr.write(`\n${output}\nnpm test: ${c.name} failed (${c.command} exit ${code}); the tests were stopped.\n`);
    process.exit(code);
  }
}
const suiteCode = await suite;
process.stderr.write(`npm test: the typecheck and the lint passed; the tests ${suiteCode === 0 ? 'passed' : `failed (vitest exit ${suiteCode})`}.\n`);
process.exit(suiteCode);
