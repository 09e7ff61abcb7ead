/**
 * The generated CLI reference (scripts/docs/cli-reference.ts): every command file under commands/ is in it, under
 * the heading of its id, with each of its flags and arguments in a table whose rows have exactly four cells
 * (a pipe in a value is escaped); the text is the same on every call.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_COMMANDS } from '../../scripts/docs/cli-commands.js';
import { cliReference } from '../../scripts/docs/cli-reference.js';
import { REPO_ROOT } from '../helpers/cli.js';

const COMMANDS = path.join(REPO_ROOT, 'commands');

/** The ids of the command files, as oclif names them: the path's words, a directory's index.ts by the directory. */
const idsOfFiles = (): string[] => (fs.readdirSync(COMMANDS, { recursive: true }) as string[])
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.replace(/\.ts$/, '').split(path.sep).filter((part, i, all) => !(part === 'index' && i === all.length - 1)).join(' '))
  .sort();

describe('cliReference', () => {
  const reference = cliReference();

  it('has every command under commands/, each under a heading of its own, in order', () => {
    const ids = idsOfFiles();
    expect(ids.length).toBeGreaterThanOrEqual(25);
    expect(CLI_COMMANDS.map(([id]) => id).sort()).toEqual(ids);
    const headed = [...reference.matchAll(/^#### `tradeseal (.+)`$/gm)].map((m) => m[1]);
    expect(headed).toEqual([...ids].sort((a, b) => a.localeCompare(b)));
  });

  it('lists each command\'s arguments and flags, with their types and defaults, and topics as headings', () => {
    for (const [id, cmd] of CLI_COMMANDS) {
      const section = reference.split(`#### \`tradeseal ${id}\``)[1]!.split('\n#')[0]!;
      expect(section).toContain(cmd.summary);
      for (const flag of Object.entries(cmd.flags ?? {}).filter(([, f]) => !f.hidden).map(([name]) => name)) expect(section, id).toContain(`| \`--${flag}\``);
      for (const arg of Object.keys(cmd.args ?? {})) expect(section, id).toContain(`| \`${arg.toUpperCase()}\` | argument`);
    }
    expect(reference).toContain('| `--limit` | `N` | `50` | How many traces at most');
    expect(reference).toContain('| `--horizon` | value | `10` |');
    expect(reference).toMatch(/^### engine$/m);
    expect(reference).toMatch(/^Every command takes `--help`\. Every command but `tradeseal pipeline schedule`, `tradeseal regime heartbeat` and `tradeseal serve` also takes `--json`/);
  });

  it('writes every table row with four cells, pipes in values escaped, and the same text each time', () => {
    const rows = reference.split('\n').filter((l) => l.startsWith('|'));
    expect(rows.length).toBeGreaterThan(100);
    for (const row of rows) expect(row.replace(/\\\|/g, '').split('|'), row).toHaveLength(6);
    expect(reference).toContain('`PENDING\\|MATCHED\\|');
    expect(cliReference()).toBe(reference);
  });
});
