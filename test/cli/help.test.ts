/** The CLI's shape: topics shown by `--help`, the engine's subtopics, and every command's summary and examples. */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { cliEnv, describeRun, REPO_ROOT, runCli, tempHome } from '../helpers/cli.js';

const pjson = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  oclif: { topics: Record<string, { description: string; subtopics?: Record<string, { description: string }> }> };
};
const COMMANDS = path.join(REPO_ROOT, 'commands');
const env = cliEnv(tempHome());

/** The lines of one help section ("TOPICS", "COMMANDS"), up to the next blank line. */
function section(help: string, title: string): string[] {
  const lines = help.split('\n');
  const start = lines.indexOf(title);
  if (start === -1) return [];
  const end = lines.findIndex((l, i) => i > start && l.trim() === '');
  return lines.slice(start + 1, end === -1 ? undefined : end);
}

const firstWords = (lines: string[], prefix = ''): string[] =>
  lines.filter((l) => /^ {2}\S/.test(l)).map((l) => l.trim().slice(prefix.length).split(/\s+/)[0] as string);

const isDir = (p: string): boolean => fs.existsSync(p) && fs.statSync(p).isDirectory();

describe('tradeseal --help', () => {
  it('lists exactly the topics that have commands, and the engine subtopics with their descriptions', async () => {
    const [top, engine] = await Promise.all([runCli(['--help'], env), runCli(['engine', '--help'], env)]);
    expect(top.code, describeRun(top)).toBe(0);
    expect(engine.code, describeRun(engine)).toBe(0);

    const withCommands = Object.keys(pjson.oclif.topics)
      .filter((t) => isDir(path.join(COMMANDS, t)))
      .sort();
    expect(withCommands).toEqual(expect.arrayContaining(['db', 'engine', 'regime']));
    expect(firstWords(section(top.stdout, 'TOPICS')).sort()).toEqual(withCommands);
    for (const t of withCommands) expect(top.stdout).toContain(pjson.oclif.topics[t]!.description.slice(0, 40));
    expect(firstWords(section(top.stdout, 'COMMANDS'))).toContain('serve');

    const subtopics = Object.keys(pjson.oclif.topics.engine!.subtopics ?? {}).sort();
    expect(subtopics).toEqual(
      fs
        .readdirSync(path.join(COMMANDS, 'engine'))
        .filter((d) => isDir(path.join(COMMANDS, 'engine', d)))
        .sort(),
    );
    expect(firstWords(section(engine.stdout, 'TOPICS'), 'engine ').sort()).toEqual(subtopics);
    // `audit-log` is a topic and a command of its own (commands/engine/audit-log/index.ts).
    expect(firstWords(section(engine.stdout, 'COMMANDS'), 'engine ').sort()).toEqual(['audit-log', 'erase', 'orphans', 'pending', 'reconcile', 'sweep']);
  }, 60_000);
});

describe('commands with neighbours: each help says what it manages and names the related commands', () => {
  /** A command's --help with its lines joined, as oclif wraps them to the terminal. */
  const help = async (...command: string[]): Promise<string> => {
    const run = await runCli([...command, '--help'], env);
    expect(run.code, describeRun(run)).toBe(0);
    return run.stdout.replace(/\s+/g, ' ');
  };

  it('the three heartbeat key commands: which half of the pair each manages, and the other two', async () => {
    const [gen, publicKey, heartbeat] = await Promise.all([help('engine', 'keys', 'gen'), help('signals', 'heartbeat-key'), help('regime', 'heartbeat')]);
    for (const text of [gen, publicKey, heartbeat]) {
      expect(text).toContain('`tradeseal signals heartbeat-key` prints the public key of the pair the signal service signs heartbeats with');
      expect(text).toContain('`tradeseal regime heartbeat` signs one heartbeat with that key');
      expect(text).toContain('`tradeseal engine keys gen` makes a new pair offline and stores nothing');
      expect(text).toContain("the transparency log's (`tradeseal engine log key`) and the signal service's API keys (`tradeseal signals keys`)");
    }
    expect(gen).toContain('Generate a new Ed25519 heartbeat key pair for the regime operator, offline (nothing is stored)');
  }, 60_000);

  it('engine orphans: every status needing an officer, why the name, and where one status or stale PENDING is listed', async () => {
    const text = await help('engine', 'orphans');
    expect(text).toContain('DIVERGENT, EXPIRED, MISMATCH, ORPHAN, and SHADOW_HALTED');
    expect(text).toContain("The name is the HTTP API's (GET /engine/orphans");
    expect(text).toContain('`tradeseal engine traces list --status S` lists one status');
    expect(text).toContain('`tradeseal engine pending` lists the PENDING traces older than an age');
  }, 60_000);
});

describe('flag errors', () => {
  // oclif alone exits 1 on a bad flag value, and 1 again (with the message lost) for any error under --json.
  it('exit 2 with the message, as text and as JSON', async () => {
    // (Flag values that the engine's API also takes are checked with its schemas instead: validation_failed.)
    const [text, json, instant] = await Promise.all([
      runCli(['engine', 'traces', 'list', '--to', 'yesterday'], env),
      runCli(['engine', 'tokens', 'issue', '--client-name', 'x', '--ttl-days', '--json'], env),
      runCli(['engine', 'traces', 'list', '--from', '2026-03-01T09:30', '--json'], env),
    ]);
    expect(text.code, describeRun(text)).toBe(2);
    expect(text.stderr).toMatch(/usage_error: Parsing --to[\s\S]*"yesterday" is not an instant/);
    expect(json.code, describeRun(json)).toBe(2);
    expect(json.json()).toMatchObject({ error: { code: 'usage_error', exit: 2, detail: expect.stringContaining('--ttl-days') } });
    expect(instant.code, describeRun(instant)).toBe(2);
    expect(instant.json().error.detail).toMatch(/not an instant: use an ISO 8601 date-time with a zone/);
  }, 60_000);
});

describe('mistakes that say what to do next', () => {
  it('a mistyped command names the nearest commands, exit 2, as text and as JSON', async () => {
    const [text, json, nothing] = await Promise.all([
      runCli(['pipline', 'run'], env),
      runCli(['engine', 'tokns', 'list', '--json'], env),
      runCli(['xyzzy'], env),
    ]);
    expect(text.code, describeRun(text)).toBe(2);
    expect(text.stderr).toContain('usage_error: "pipline run" is not a tradeseal command');
    expect(text.stderr).toContain('did you mean `tradeseal pipeline run`');
    expect(json.code, describeRun(json)).toBe(2);
    expect(json.json().error).toMatchObject({ code: 'usage_error', exit: 2, hint: expect.stringMatching(/^did you mean `tradeseal engine tokens list`/) });
    expect(nothing.code, describeRun(nothing)).toBe(2);
    expect(nothing.stderr).toContain('`tradeseal help` lists the commands');
  }, 60_000);

  it('a command the typed words abbreviate comes before one a few letters away: `engine orphan` is `engine orphans`', async () => {
    const [orphan, words, json] = await Promise.all([
      runCli(['engine', 'orphan'], env),
      runCli(['traces', 'list'], env),
      runCli(['engine', 'orphan', '--json'], env),
    ]);
    expect(orphan.code, describeRun(orphan)).toBe(2);
    expect(orphan.stderr).toContain('did you mean `tradeseal engine orphans`?');
    expect(orphan.stderr).not.toContain('erase');
    expect(words.stderr).toContain('did you mean `tradeseal engine traces list`?');
    expect(json.json().error).toEqual({
      code: 'usage_error',
      detail: '"engine orphan" is not a tradeseal command',
      exit: 2,
      hint: 'did you mean `tradeseal engine orphans`?',
    });
  }, 60_000);

  it('an unknown flag is exit 2 naming the nearest flags of the command, as text and as JSON', async () => {
    const [text, json, several, none] = await Promise.all([
      runCli(['engine', 'traces', 'list', '--limt', '5'], env),
      runCli(['engine', 'traces', 'list', '--limt=5', '--json'], env),
      runCli(['engine', 'traces', 'list', '--lim', '5', '--colums', 'id'], env),
      runCli(['quant', 'arima', 'x.csv', '--verbose'], env),
    ]);
    expect(text.code, describeRun(text)).toBe(2);
    expect(text.stderr).toContain('usage_error: Nonexistent flag: --limt');
    expect(text.stderr).toContain('did you mean --limit? (`tradeseal engine traces list --help` lists its flags)');
    expect(json.code, describeRun(json)).toBe(2);
    expect(json.json().error).toEqual({
      code: 'usage_error',
      detail: 'Nonexistent flag: --limt=5',
      exit: 2,
      hint: 'did you mean --limit? (`tradeseal engine traces list --help` lists its flags)',
    });
    expect(several.code, describeRun(several)).toBe(2);
    expect(several.stderr).toContain('--lim: did you mean --limit?; --colums: did you mean --columns?');
    expect(none.code, describeRun(none)).toBe(2);
    expect(none.stderr).toContain('`tradeseal quant arima --help` lists its flags');
    expect(none.stderr).not.toContain('did you mean');
  }, 60_000);

  it('pipeline schedule refuses an unknown time zone, naming the nearest ones, and a bad cron expression', async () => {
    const r = await runCli(['pipeline', 'schedule', '--timezone', 'Europe/Londn', '--cron', '61 * * * *'], env);
    expect(r.code, describeRun(r)).toBe(2);
    expect(r.stderr).toMatch(/--timezone: "Europe\/Londn" is not an IANA time zone; did you mean Europe\/London/);
    expect(r.stderr).toMatch(/--cron: "61 \* \* \* \*" is not a cron expression/);
  }, 60_000);
});

/** Commands that opt out of `--json` (and so of `--jsonl`), each for a reason; any other command answers both. */
const WITHOUT_JSON_FLAG: Record<string, string> = {
  'serve.ts': 'runs until a signal; it has no result',
  [path.join('regime', 'heartbeat.ts')]: 'its output is the heartbeat as JSON already',
  [path.join('pipeline', 'schedule.ts')]: 'runs until a signal, logging each run as a JSON line',
};

describe('every command', () => {
  const files = (fs.readdirSync(COMMANDS, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).sort();

  it('finds the commands', () => {
    expect(files.length).toBeGreaterThanOrEqual(25);
    expect(files).toContain(path.join('engine', 'traces', 'verify.ts'));
  });

  it.each(files)('%s has a summary, examples that run it, and --json unless it opts out for a reason', async (file) => {
    const mod = (await import(pathToFileURL(path.join(COMMANDS, file)).href)) as { default: typeof TradesealCommand };
    const cmd = mod.default;
    expect(cmd.prototype).toBeInstanceOf(TradesealCommand);
    expect(typeof cmd.summary === 'string' && cmd.summary.length > 10).toBe(true);
    expect(cmd.summary).not.toMatch(/\.$/);
    const examples = cmd.examples ?? [];
    expect(examples.length).toBeGreaterThanOrEqual(1);
    // Each example runs this very command (a copied example naming another command is a classic slip).
    // A directory's index.ts is the command named by the directory (`engine audit-log`).
    const id = file
      .replace(/\.ts$/, '')
      .split(path.sep)
      .filter((part, i, all) => !(part === 'index' && i === all.length - 1))
      .join(' ');
    for (const e of examples) expect(typeof e === 'string' ? e : e.command).toContain(`<%= config.bin %> ${id}`);
    expect(cmd.enableJsonFlag).toBe(!(file in WITHOUT_JSON_FLAG));
    expect(Object.keys(cmd.baseFlags ?? {})).toEqual(file in WITHOUT_JSON_FLAG ? [] : ['jsonl']);
  });
});
