#!/usr/bin/env node
// `npm test`: the typecheck (`tsc --noEmit`) and the suite (`vitest run`, with any arguments given) at once,
// since the typecheck needs one core for some 20 s while the suite starts its servers and stores. Exits 0 only
// when both pass. A type error stops the suite at once, as the typecheck coming first would have: the code
// under test does not compile as written.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

const vitest = spawn(bin('vitest'), ['run', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
const tsc = spawn(bin('tsc'), ['-p', 'tsconfig.json', '--noEmit', '--pretty', 'false'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
let typeErrors = '';
tsc.stdout.on('data', (chunk) => (typeErrors += chunk));
tsc.stderr.on('data', (chunk) => (typeErrors += chunk));

const exited = (child) => new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
const [typecheck, suite] = [exited(tsc), exited(vitest)];

const typecheckCode = await typecheck;
if (typecheckCode !== 0) {
  vitest.kill('SIGTERM');
  await suite;
  process.stderr.write(`\n${typeErrors}\nnpm test: the typecheck failed (tsc exit ${typecheckCode}); the tests were stopped.\n`);
  process.exit(typecheckCode);
}
const suiteCode = await suite;
process.stderr.write(`npm test: the typecheck passed; the tests ${suiteCode === 0 ? 'passed' : `failed (vitest exit ${suiteCode})`}.\n`);
process.exit(suiteCode);
