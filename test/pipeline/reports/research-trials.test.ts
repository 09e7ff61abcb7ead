/**
 * The trials the deflated Sharpe ratio counts (pipeline/reports/research-trials.ts): the shipped
 * data/research/variants.json holds every row of the research tables in pipeline/README.md (every round),
 * with its in-sample Sharpe ratio as printed there, and N and V come from all of them; a malformed file is
 * refused, never half read.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { trialVariance } from '../../../pipeline/performance/deflated-sharpe.js';
import {
  defaultVariantsFile,
  loadResearchTrials,
  researchTrials,
  writeResearchVariants,
  type ResearchVariants,
} from '../../../pipeline/reports/research-trials.js';

/** The rows of the table of one section of pipeline/README.md that have a single in-sample Sharpe ratio, each named `prefix` + its name (without the chosen mark or "(check)"). */
function sectionRows(text: string, heading: string, prefix = ''): Array<{ name: string; check: boolean; chosen: boolean; sharpe: number }> {
  const at = text.indexOf(`## ${heading}`);
  const section = text.slice(at, text.indexOf('\n## ', at + 1) === -1 ? undefined : text.indexOf('\n## ', at + 1));
  const lines = section.split('\n').filter((l) => l.startsWith('| '));
  const header = lines[0]!
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());
  const column = header.indexOf('IS sharpe');
  return lines
    .slice(1)
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    )
    .filter((cells) => /^−?\d+\.\d+$/.test(cells[column]!))
    .map((cells) => {
      let name = cells[0]!.replaceAll('**', '');
      const chosen = name.startsWith('chosen ') && cells[0]!.startsWith('**chosen**');
      if (chosen) name = name.slice('chosen '.length);
      const check = name.endsWith(' (check)');
      if (check) name = name.slice(0, -' (check)'.length);
      return { name: `${prefix}${name}`, check, chosen, sharpe: Number(cells[column]!.replace('−', '-')) };
    });
}

/**
 * Every trial of every round: round 1's table ("Every variant"), the single-valued rows of the starts compared in
 * "A method without a seed" (the rows with a range are eight seeds each, not one trial of a variant), round 2's table.
 * Only round 2's pick, the method in force, is marked chosen in the file; round 1's pick is history.
 */
function readmeRows(): Array<{ name: string; check: boolean; chosen: boolean; sharpe: number }> {
  const text = readFileSync(new URL('../../../pipeline/README.md', import.meta.url), 'utf8');
  return [
    ...sectionRows(text, 'Every variant').map((r) => ({ ...r, chosen: false })),
    ...sectionRows(text, 'A method without a seed', 'starts ').map((r) => ({ ...r, chosen: false })),
    ...sectionRows(text, 'Round 2'),
  ];
}

describe('data/research/variants.json', () => {
  const doc = JSON.parse(readFileSync(defaultVariantsFile(), 'utf8')) as ResearchVariants;

  it('holds every row of the research tables, with its in-sample Sharpe ratio, in order; the method in force is the one chosen', () => {
    const rows = readmeRows();
    expect(rows.length).toBeGreaterThan(150);
    // The tables print two decimals; round 2's runs wrote the file in full.
    expect(doc.variants.map((v) => [v.name, v.check, v.chosen === true, Number(v.in_sample_sharpe.toFixed(2))])).toEqual(
      rows.map((r) => [r.name, r.check, r.chosen, r.sharpe]),
    );
    expect(doc.variants.filter((v) => v.chosen).map((v) => v.name)).toEqual(['r2 -curve mom']);
  });

  it('gives N = every variant and V = the sample variance of their Sharpe ratios, per day V / 252', () => {
    const t = loadResearchTrials();
    const sharpes = doc.variants.map((v) => v.in_sample_sharpe);
    expect(t.trials).toBe(doc.variants.length);
    expect(t.sharpe_variance_annualized).toBe(trialVariance(sharpes));
    expect(t.sharpe_variance_per_day).toBe(trialVariance(sharpes) / 252);
    expect(t.source).toBe(doc.source);
  });
});

describe('researchTrials', () => {
  const base: ResearchVariants = { what: '', source: 'test', window: { from: '2007-01-01', to: '2016-12-31' }, variants: [] };
  const v = (name: string, s: number) => ({ name, check: false, in_sample_sharpe: s });

  it('refuses a name twice, a missing or non-finite Sharpe ratio, and fewer than two variants', () => {
    expect(() => researchTrials({ ...base, variants: [v('a', 1), v('a', 2)] })).toThrow(/a appears twice/);
    expect(() => researchTrials({ ...base, variants: [v('a', 1), v('b', Number.NaN)] })).toThrow(/finite in_sample_sharpe/);
    expect(() => researchTrials({ ...base, variants: [v('a', 1), { name: 'b' } as never] })).toThrow(/finite in_sample_sharpe/);
    expect(() => researchTrials({ ...base, variants: [v('a', 1)] })).toThrow(/at least 2/);
    expect(() => researchTrials({ ...base, variants: 'x' } as never)).toThrow(/expected an array/);
  });
});

describe('writeResearchVariants', () => {
  const window = { from: '2007-01-01', to: '2016-12-31' };

  it('writes a file the reader reads back with the same trials', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'variants-')), 'variants.json');
    const written = writeResearchVariants(
      [
        { name: 'a', check: false, in_sample_sharpe: 0.5, chosen: true },
        { name: 'a seed 1', check: true, in_sample_sharpe: 0.7 },
      ],
      window,
      'a test run',
      file,
    );
    expect(loadResearchTrials(file)).toEqual(written);
    expect(written).toMatchObject({ source: 'a test run', trials: 2 });
    expect(written.sharpe_variance_annualized).toBeCloseTo(0.02, 15);
  });

  it('writes nothing when a variant has no Sharpe ratio', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'variants-')), 'variants.json');
    expect(() =>
      writeResearchVariants(
        [
          { name: 'a', check: false, in_sample_sharpe: 0.5 },
          { name: 'b', check: false, in_sample_sharpe: null as never },
        ],
        window,
        'x',
        file,
      ),
    ).toThrow(/finite/);
    expect(existsSync(file)).toBe(false);
  });
});
