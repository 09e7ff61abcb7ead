/**
 * oclif's `command_not_found` hook: a mistyped command ends with the closest commands ("did you mean"),
 * as a usage error (exit 2), and as `{"error": {...}}` under `--json`, like every other failure.
 * Closeness is the Levenshtein distance between the typed words and each command id (`closest.ts`).
 */
import { Errors, type Hook } from '@oclif/core';
import { ERROR_CODES } from '../../errors.js';
import { closest } from '../closest.js';

/** The command ids nearest to `typed` (words joined by spaces), best first, and those that start with it. */
export function closestCommands(typed: string, ids: readonly string[], max = 3): string[] {
  // A command that starts with what was typed counts too (`engine tokens` → `engine tokens issue`).
  const prefixed = ids.filter((id) => id.startsWith(`${typed} `));
  return [...new Set([...closest(typed, ids, max), ...prefixed])].slice(0, max);
}

const hook: Hook<'command_not_found'> = async function (opts) {
  const ids = opts.config.commands.filter((c) => !c.hidden).map((c) => c.id.replace(/:/g, ' '));
  const typed = opts.id.replace(/:/g, ' ');
  const suggestions = closestCommands(typed, ids);
  const detail = `"${typed}" is not a ${opts.config.bin} command`;
  const hint = suggestions.length > 0
    ? `did you mean ${suggestions.map((s) => `\`${opts.config.bin} ${s}\``).join(' or ')}?`
    : `\`${opts.config.bin} help\` lists the commands`;
  const exit = ERROR_CODES.usage_error.exit;
  if ((opts.argv ?? []).includes('--json')) {
    process.stdout.write(`${JSON.stringify({ error: { code: 'usage_error', detail, exit, hint } }, null, 2)}\n`);
    this.exit(exit);
  }
  throw new Errors.CLIError(`usage_error: ${detail}`, { exit, suggestions: [hint] });
};

export default hook;
