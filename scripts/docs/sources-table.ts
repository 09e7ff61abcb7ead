/**
 * docs/operations.md's table of the data sources (`pipeline/sources/index.ts`, `SOURCES`): what each supplies,
 * the setting that holds its key, where its format is documented, its terms and limits. Generated, so the table an
 * operator chooses from is the one the fetch implements.
 */
import { SOURCES } from '../../pipeline/sources/index.js';

const cell = (text: string): string => text.replace(/\|/g, '\\|');

export function sourcesTable(): string {
  const rows = SOURCES.map((s) => `| \`${s.name}\` | ${cell(s.vendor)} | ${cell(s.series)} | ${s.key ? `\`${s.key}\`` : 'none'} | ${s.documentation ? s.documentation.join(', ') : `none published: ${s.official ? '' : 'an unofficial API, '}its format is read from the answers`} | ${cell(s.terms)} | ${cell(s.limits)} | ${cell(s.coverage)} |`);
  return ['| Source | Vendor | Supplies | Key | Format documented at | Terms | Limits | History |', '|---|---|---|---|---|---|---|---|', ...rows].join('\n');
}
