/**
 * The documentation's sections generated from code, so documented tables cannot drift from the code that
 * defines them (the settings, the error codes, the policy denial codes, the IRL Engine's codes for them, the
 * signal service's tiers, the pipeline's release rules, and the CLI's command and flag reference). Which page
 * holds which is `PAGE_SECTIONS` in `pages.ts`.
 */
import { sourcesTable } from './sources-table.js';
import { settingsTable } from '../../src/core/config.js';
import { codesTable } from '../../src/core/errors.js';
import { irlErrorCodesTable } from '../../src/http/irl/error-codes.js';
import { tiersTable } from '../../src/signals/ops/account.js';
import { cliReference } from './cli-reference.js';
import { releasesTable } from './release-table.js';
import { fixTagTable } from '../../src/engine/reconcile/fix-log.js';
import { reconcileRulesTable } from '../../src/engine/reconcile/compare.js';

export function generatedSections(): Record<string, string> {
  return {
    settings: settingsTable(),
    denials: codesTable('denial'),
    errors: codesTable('error'),
    'irl-errors': irlErrorCodesTable(),
    tiers: tiersTable(),
    releases: releasesTable(),
    sources: sourcesTable(),
    'fix-tags': fixTagTable(),
    'reconcile-rules': reconcileRulesTable(),
    'cli-reference': cliReference(),
  };
}

/** Replaces the body between `<!-- name:start -->` and `<!-- name:end -->` for each section. */
export function replaceSections(text: string, sections: Record<string, string>, document = 'the document'): string {
  let out = text;
  for (const [name, body] of Object.entries(sections)) {
    const start = `<!-- ${name}:start -->`;
    const end = `<!-- ${name}:end -->`;
    const i = out.indexOf(start);
    const j = out.indexOf(end);
    if (i < 0 || j < i) throw new Error(`${document} has no ${start} … ${end} markers`);
    out = `${out.slice(0, i + start.length)}\n${body}\n${out.slice(j)}`;
  }
  return out;
}
