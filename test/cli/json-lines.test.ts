/**
 * `--jsonl`, the JSON Lines form of every command's answer, for logs and pipes: the cron line
 * `tradeseal pipeline run --jsonl >> pipeline.jsonl`, run twice by a shell as cron runs it, leaves two lines,
 * each a whole JSON document; a listing is one line per row (none for an empty one); an error is one
 * `{"error": …}` line with the exit code it has without the flag; `--json` and `--jsonl` together are refused.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines } from '../../src/cli/json-lines.js';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { builtCli, spawnEnv } from '../helpers/built-cli.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { macroDataThrough } from '../helpers/macro-data.js';

const home = tempHome();
let store: TestStore;
let env: CliEnv;

beforeAll(async () => {
  store = await testStore();
  env = cliEnv(home, store.url);
});
afterAll(async () => store?.close());

/** `command` run by bash in `cwd`, as cron runs a crontab line; its exit code and stderr. */
function shell(command: string, cwd: string, environment: CliEnv): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', command], { cwd, env: spawnEnv(environment), timeout: 300_000 }, (error, _stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stderr });
    });
  });
}

/** The lines of a JSON Lines text, each parsed; a line that is not JSON fails the test, naming it. */
function parseLines(text: string): unknown[] {
  expect(text.endsWith('\n'), 'every line ends with a newline').toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line, i) => {
      try {
        return JSON.parse(line);
      } catch {
        throw new Error(`line ${i + 1} is not JSON: ${line.slice(0, 200)}`);
      }
    });
}

describe('jsonLines', () => {
  it("is an array's elements, a listing's rows, or the document alone", () => {
    expect(jsonLines([{ a: 1 }, { a: 2 }])).toEqual([{ a: 1 }, { a: 2 }]);
    expect(jsonLines({ count: 2, has_more: false, traces: [{ id: 1 }, { id: 2 }] }, 'traces')).toEqual([{ id: 1 }, { id: 2 }]);
    expect(jsonLines({ count: 0, traces: [] }, 'traces')).toEqual([]);
    expect(jsonLines({ run_id: 'r', stages: [1, 2] })).toEqual([{ run_id: 'r', stages: [1, 2] }]);
    expect(jsonLines({ error: { code: 'usage_error' } }, 'traces')).toEqual([{ error: { code: 'usage_error' } }]);
  });
});

describe('tradeseal … --jsonl', () => {
  it('the cron line `pipeline run --jsonl >> pipeline.jsonl`, run twice, leaves two lines, each a whole JSON document', async () => {
    const data = await macroDataThrough('2007-12-31');
    const line = `${JSON.stringify(process.execPath)} ${JSON.stringify(builtCli())} pipeline run --jsonl --data-dir ${JSON.stringify(data)} >> pipeline.jsonl`;
    for (let i = 0; i < 2; i++) {
      const r = await shell(line, home, env);
      expect(r.code, r.stderr).toBe(0);
    }
    const runs = parseLines(fs.readFileSync(path.join(home, 'pipeline.jsonl'), 'utf8')) as Array<Record<string, unknown>>;
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatchObject({ mode: 'full', published: true, last_day: '2007-12-31' });
    expect(runs[1]).toMatchObject({ mode: 'incremental', published: true, days: 0, last_day: '2007-12-31' });
    expect(runs[0]!.run_id).not.toBe(runs[1]!.run_id);
  }, 600_000);

  it('prints a listing one row per line, the rows of --json; an empty listing prints nothing', async () => {
    const empty = await runCli(['engine', 'tokens', 'list', '--jsonl'], env);
    expect(empty.code, describeRun(empty)).toBe(0);
    expect(empty.stdout).toBe('');
    for (const name of ['desk-a', 'desk-b', 'desk-c']) {
      const issued = await runCli(['engine', 'tokens', 'issue', '--client-name', name, '--jsonl'], env);
      expect(issued.code, describeRun(issued)).toBe(0);
      // A single answer is one line.
      expect(parseLines(issued.stdout)).toEqual([expect.objectContaining({ client_name: name })]);
    }
    const [lines, document] = await Promise.all([runCli(['engine', 'tokens', 'list', '--jsonl'], env), runCli(['engine', 'tokens', 'list', '--json'], env)]);
    expect(lines.code, describeRun(lines)).toBe(0);
    const listing = document.json<{ count: number; tokens: unknown[] }>();
    expect(listing.count).toBe(3);
    expect(parseLines(lines.stdout)).toEqual(listing.tokens);
  }, 60_000);

  it('prints an error as one line with its exit code, and refuses --json with --jsonl', async () => {
    const [bad, both, unknown] = await Promise.all([
      runCli(['engine', 'traces', 'list', '--limit', '0', '--jsonl'], env),
      runCli(['engine', 'tokens', 'list', '--json', '--jsonl'], env),
      runCli(['engine', 'tokns', 'list', '--jsonl'], env),
    ]);
    expect(bad.code, describeRun(bad)).toBe(2);
    expect(parseLines(bad.stdout)).toEqual([{ error: expect.objectContaining({ code: 'validation_failed', exit: 2 }) }]);
    expect(both.code, describeRun(both)).toBe(2);
    expect(parseLines(both.stdout)).toEqual([
      { error: expect.objectContaining({ code: 'usage_error', detail: expect.stringContaining('--json=true cannot also be provided when using --jsonl') }) },
    ]);
    expect(unknown.code, describeRun(unknown)).toBe(2);
    expect(parseLines(unknown.stdout)).toEqual([
      { error: expect.objectContaining({ code: 'usage_error', hint: 'did you mean `tradeseal engine tokens list`?' }) },
    ]);
  }, 60_000);
});
