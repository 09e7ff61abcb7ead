/**
 * Refreshing one FRED file: FRED's observations (../fred.ts) merged into the file (rows before the first one
 * fetched are kept: FRED serves only three years of the ICE BofA series), checked with the series' rules and
 * only then written, atomically; what FRED revised, removed or inserted inside the file's old range is recorded
 * (./file-revisions.ts). A series whose merged rows break a rule is refused (`source_answer_invalid`, naming
 * every problem) and its file is left as it was.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../src/core/atomic-file.js';
import { TradesealError } from '../../src/core/errors.js';
import { fetchSeries, mergeObservations, type FetchOptions, type FredConfig } from '../fred.js';
import type { SeriesSpec } from '../ingest/catalogue.js';
import { formatFredCsv, parseFredCsv } from '../ingest/fred-format.js';
import { problemEntries, summarizeProblems } from '../ingest/problems.js';
import { validateSeriesTextOnce } from '../ingest/validated.js';
import type { FetchedFile } from './fetch-record.js';
import { fileRevisions } from './file-revisions.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export async function refreshFredSeries(config: FredConfig, dir: string, spec: SeriesSpec, options: FetchOptions & { nowMs: number }): Promise<FetchedFile> {
  const file = path.join(dir, spec.file);
  let before = '';
  try {
    before = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const { observations } = await fetchSeries(config, spec.id, options);
  const merged = mergeObservations(before === '' ? [] : parseFredCsv(spec, before), observations);
  const text = observations.length > 0 ? formatFredCsv(spec, merged) : before;
  const { problems } = validateSeriesTextOnce(spec, text);
  if (problems.length > 0) {
    throw new TradesealError(
      'source_answer_invalid',
      `FRED answered ${spec.id} with rows its rules refuse, merged with the rows kept (${summarizeProblems(problems)}; line numbers are those of the file as it would have been written). Nothing was written: ${spec.file} is as it was.`,
      {
        errors: problemEntries(problems),
      },
    );
  }
  if (text !== before) await writeFileAtomic(file, text);
  const { revisions, added } = fileRevisions(spec, before, text);
  const url = new URL('/fred/series/observations', `${config.fredBaseUrl}/`);
  url.searchParams.set('series_id', spec.id);
  return {
    series: spec.id,
    file: spec.file,
    source: 'fred',
    source_url: url.toString(),
    fetched_at: new Date(options.nowMs).toISOString(),
    changed_at: new Date(options.nowMs).toISOString(),
    sha256: sha256(text),
    rows: merged.length,
    last_date: merged.at(-1)?.date ?? null,
    added,
    revisions,
  };
}
