/**
 * The README's table of release rules: for every input series of the catalogue, when a value becomes public
 * (`describeRule`) and the publisher's calendar the rule rests on (the rule's `source`). Generated, so the
 * documented point-in-time rule is the one the pipeline applies.
 */
import { CATALOGUE } from '../../pipeline/ingest/catalogue.js';
import { describeRule } from '../../pipeline/release/rules.js';

const cell = (text: string): string => text.replace(/\|/g, '\\|');

export function releasesTable(): string {
  const rows = CATALOGUE.map((s) => `| \`${s.id}\` | ${cell(describeRule(s.release))} | ${cell(s.release.source)} |`);
  return ['| Series | A value dated d is released | The publisher\'s calendar |', '|---|---|---|', ...rows].join('\n');
}
