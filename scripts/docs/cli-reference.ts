/**
 * The CLI reference of docs/cli.md, generated from the command classes so that it cannot drift from them:
 * every command (./cli-commands.ts) under a heading of its topic, with its summary and a table of its
 * arguments and flags (type, default, description), in the order of the command ids. The flags every command
 * with an answer shares (`--json`, `--jsonl`) are said once, above the topics.
 */
import type { Command } from '@oclif/core';
import { CLI_COMMANDS } from './cli-commands.js';

/** What the reference reads of a flag or an argument definition (oclif's, at run time). */
interface Definition {
  type?: string;
  summary?: string;
  description?: string;
  default?: unknown;
  options?: readonly string[];
  helpValue?: string | string[];
  multiple?: boolean;
  required?: boolean;
  hidden?: boolean;
  allowNo?: boolean;
  char?: string;
}

/** A table cell: one line, pipes escaped (in code spans too: GitHub splits a table row at every bare pipe). */
const cell = (text: string): string => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|').trim();
const code = (text: string): string => `\`${text}\``;

/** A flag's or argument's type: a switch, one of its options, its value's shape, repeatable, required. */
function typeOf(d: Definition): string {
  const value = d.type === 'boolean' ? (d.allowNo ? 'switch (`--no-` to turn off)' : 'switch')
    : d.options && d.options.length > 0 ? `one of ${d.options.map(code).join(', ')}`
      : d.helpValue ? code(Array.isArray(d.helpValue) ? d.helpValue.join(' ') : d.helpValue) : 'value';
  return [value, ...(d.multiple ? ['repeatable'] : []), ...(d.required ? ['required'] : [])].join(', ');
}

/** A default known without running anything; a computed one is said by the description. */
const defaultOf = (d: Definition): string =>
  d.default === undefined || typeof d.default === 'function' || d.default === false ? '' : code(String(d.default));

function commandSection(id: string, cmd: Command.Class): string {
  const args = Object.entries((cmd.args ?? {}) as Record<string, Definition>).filter(([, a]) => !a.hidden);
  const flags = Object.entries((cmd.flags ?? {}) as Record<string, Definition>).filter(([, f]) => !f.hidden)
    .sort(([a], [b]) => a.localeCompare(b));
  const rows = [
    ...args.map(([name, a]) => `| ${code(name.toUpperCase())} | argument, ${a.required ? 'required' : 'optional'} | ${cell(defaultOf(a))} | ${cell(a.description ?? '')} |`),
    ...flags.map(([name, f]) => `| ${code(`--${name}`)}${f.char ? ` (${code(`-${f.char}`)})` : ''} | ${cell(typeOf(f))} | ${cell(defaultOf(f))} | ${cell(f.summary ?? f.description ?? '')} |`),
  ];
  const table = rows.length > 0 ? ['', '| | type | default | description |', '|---|---|---|---|', ...rows] : ['', 'No arguments or flags.'];
  return [`#### \`tradeseal ${id}\``, '', `${cell(cmd.summary ?? '')}.`, ...table].join('\n');
}

/** The reference as Markdown: a `###` heading per topic, a `####` heading and a table per command. */
export function cliReference(): string {
  const commands = [...CLI_COMMANDS].sort(([a], [b]) => a.localeCompare(b));
  const withoutJson = commands.filter(([, cmd]) => !cmd.enableJsonFlag).map(([id]) => code(`tradeseal ${id}`));
  const but = withoutJson.length > 1 ? `${withoutJson.slice(0, -1).join(', ')} and ${withoutJson.at(-1)}` : withoutJson.join('');
  const intro = `Every command takes \`--help\`. Every command but ${but} also takes \`--json\` (its answer as one JSON document) and \`--jsonl\` (the same as JSON Lines); they are not repeated below.`;
  const topics = new Map<string, string[]>();
  for (const [id, cmd] of commands) {
    const topic = id.split(' ')[0]!;
    topics.set(topic, [...(topics.get(topic) ?? []), commandSection(id, cmd)]);
  }
  return [intro, ...[...topics].map(([topic, sections]) => [`### ${topic}`, ...sections].join('\n\n'))].join('\n\n');
}
