/**
 * The documented-output checker end to end, on a small document (fixtures/sample.md) run with this tree's CLI:
 * two blocks sharing an exported variable, a `published` store, a `serve` block answered through curl, a block
 * with its own environment, and one deliberately wrong output, which is the only failure, reported with its
 * file and line. An update writes the real output in, after which the check passes.
 *
 * What the `published` directive promises is that the document starts from a copy of the template home it is
 * given; which history the template holds is `makePublishedTemplate`'s (run by test/docs/outputs.test.ts). So
 * the sample's template is a store that one operator broadcast made (a few seconds), not a pipeline run, and the
 * sample reads that broadcast back through the CLI.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDocuments } from '../../../scripts/docs/check/check.js';
import { runCommand } from '../../../scripts/docs/check/shell.js';
import { buildCli, makeToolbox, makeWorkspace, removeToolbox, type Toolbox } from '../../../scripts/docs/check/workspace.js';

const root = path.resolve(import.meta.dirname, '..', '..', '..');
const fixture = path.join(import.meta.dirname, 'fixtures', 'sample.md');

let box: Toolbox;
let template: string;
let dir: string;

/** The sample's template home: a new embedded store holding one operator broadcast, which the sample shows. */
async function broadcastTemplate(toolbox: Toolbox): Promise<string> {
  const ws = makeWorkspace(toolbox, 'sample-template', null);
  const command = `tradeseal regime publish --regime risk_off --risk-score 0.9 --reason "the sample's template"`;
  const r = await runCommand(command, { cwd: ws.cwd, env: ws.env, deadlineMs: 120_000, scratch: toolbox.root });
  if (r.exitCode !== 0) throw new Error(`${command} failed (exit ${r.exitCode}):\n${r.output}`);
  return ws.home;
}

beforeAll(async () => {
  buildCli(root);
  box = makeToolbox(root, 'dist');
  template = await broadcastTemplate(box);
  dir = mkdtempSync(path.join(tmpdir(), 'docs-check-e2e-'));
}, 180_000);

afterAll(() => {
  if (box) removeToolbox(box);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The processes whose command line contains `marker`. */
function processesWith(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(marker) && Number(pid) !== process.pid) found.push(`${pid}: ${cmdline}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe('docs:check on a sample document', () => {
  it('reports only the wrong output, as a diff naming file:line; docs:update fixes it and the check then passes', async () => {
    const doc = path.join(dir, 'sample.md');
    copyFileSync(fixture, doc);
    const checked = await checkDocuments({ packageRoot: root, documents: [doc], update: false, templateHome: template });
    expect(checked.commands).toBe(8);
    expect(checked.failures).toEqual([
      [
        `${doc}:39: the output of \`echo "the answer is $ANSWER"\` differs:`,
        `--- ${doc}:39 (documented)`,
        `+++ ${doc}:39 (printed)`,
        '@@ -1,1 +1,1 @@',
        '-the answer is 41',
        '+the answer is 42',
      ].join('\n'),
    ]);

    const updated = await checkDocuments({ packageRoot: root, documents: [doc], update: true, templateHome: template });
    expect(updated).toMatchObject({ failures: [], updated: [doc] });
    const before = readFileSync(fixture, 'utf8').split('\n');
    const after = readFileSync(doc, 'utf8').split('\n');
    // Only the wrong line and the line of run-dependent values (written as printed, not masked) changed.
    expect(after.length).toBe(before.length);
    expect(after.map((l, i) => (l === before[i] ? null : i + 1)).filter((n) => n !== null)).toEqual([25, 40]);
    expect(after[39]).toBe('the answer is 42');
    expect(after[24]).toMatch(/^hello again, run [0-9a-f-]{36} at \d{4}-\d\d-\d\dT/);

    expect((await checkDocuments({ packageRoot: root, documents: [doc], update: false, templateHome: template })).failures).toEqual([]);
  }, 300_000);

  it('kills a command at its deadline with everything it started, and says so with its line', async () => {
    const doc = path.join(dir, 'slow.md');
    writeFileSync(doc, ['# Slow', '', '```console', '$ (sleep 31.4159 &); sleep 31.4159', '```', ''].join('\n'));
    const checked = await checkDocuments({ packageRoot: root, documents: [doc], update: false, commandDeadlineMs: 2_000 });
    expect(checked.failures).toEqual([`${doc}:4: \`(sleep 31.4159 &); sleep 31.4159\` did not finish within 2 s (killed)`]);
    expect(processesWith('sleep 31.4159')).toEqual([]);
  }, 60_000);

  it('runs a continued document where the other left off: in its workspace, with what it exported, after it', async () => {
    const first = path.join(dir, 'first.md');
    const second = path.join(dir, 'second.md');
    writeFileSync(first, ['# First', '', '```console', '$ export LEFT=by-the-first; echo kept > note.txt', '```', ''].join('\n'));
    const secondText = (shown: string): string =>
      [`<!-- docs-check: continues ${first} -->`, '```console', '$ echo "$LEFT $(cat note.txt)"', shown, '```', ''].join('\n');
    writeFileSync(second, secondText('by-the-first kept'));
    // Listed before the one it continues: it still runs after it.
    expect((await checkDocuments({ packageRoot: root, documents: [second, first], update: false })).failures).toEqual([]);
    writeFileSync(second, secondText('something else'));
    const differs = await checkDocuments({ packageRoot: root, documents: [second, first], update: false });
    expect(differs.failures).toEqual([expect.stringMatching(new RegExp(`^${second}:3: the output of .* differs`))]);
    // A document that continues one not checked is a failure naming it; nothing of it runs.
    const alone = await checkDocuments({ packageRoot: root, documents: [second], update: false });
    expect(alone.failures).toEqual([`${second}:1: docs-check: continues ${first}, which is not among the checked documents or runs no command`]);
    expect(alone.commands).toBe(0);
  }, 60_000);

  it('runs the documented `tradeseal` as this tree\'s CLI', () => {
    const printed = execFileSync('tradeseal', ['--version'], { env: { ...box.baseEnv }, encoding: 'utf8' });
    expect(printed).toMatch(/^tradeseal\/0\.1\.0 /);
  });
});
