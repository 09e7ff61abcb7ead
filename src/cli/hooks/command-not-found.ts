/**
 * oclif's `command_not_found` hook: a mistyped command ends with the closest commands ("did you mean"),
 * as a usage error (exit 2), and as `{"error": {...}}` under `--json` (on one line under `--jsonl`), like
 * every other failure. The ranking is `suggestions` of `closest.ts`: a command the typed words start or
 * abbreviate (`engine orphan` → `engine orphans`, `traces list` → `engine traces list`) before one that is
 * merely a few letters away, and the typed topic's own commands first. With nothing close enough, the hint lists
 * the topics instead of guessing.
 */
import { Errors, type Hook } from '@oclif/core';
import { ERROR_CODES } from '../../core/errors.js';
import { suggestions } from '../closest.js';

/** The command ids a user most likely meant by `typed` (words joined by spaces), best first. */
export function closestCommands(typed: string, ids: readonly string[], max = 3): string[] {
  return suggestions(typed, ids, { separator: ' ', max });
}

const hook: Hook<'command_not_found'> = async function (opts) {
  const ids = opts.config.commands.filter((c) => !c.hidden).map((c) => c.id.replace(/:/g, ' '));
  const typed = opts.id.replace(/:/g, ' ');
  const nearest = closestCommands(typed, ids);
  const detail = `"${typed}" is not a ${opts.config.bin} command`;
  // Nothing near enough: the topics, for a command typed from memory, rather than a guess.
  const topics = [...new Set(ids.map((id) => id.split(' ')[0]!))].sort();
  const hint =
    nearest.length > 0
      ? `did you mean ${nearest.map((s) => `\`${opts.config.bin} ${s}\``).join(' or ')}?`
      : `every command starts with one of ${topics.join(', ')}; \`${opts.config.bin} help\` lists the commands`;
  const exit = ERROR_CODES.usage_error.exit;
  const argv = opts.argv ?? [];
  if (argv.includes('--json') || argv.includes('--jsonl')) {
    const error = { error: { code: 'usage_error', detail, exit, hint } };
    process.stdout.write(`${argv.includes('--jsonl') ? JSON.stringify(error) : JSON.stringify(error, null, 2)}\n`);
    this.exit(exit);
  }
  throw new Errors.CLIError(`usage_error: ${detail}`, { exit, suggestions: [hint] });
};

export default hook;
