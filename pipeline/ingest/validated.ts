/**
 * The validator (validate.ts) remembering its last answer per series: the nightly job validates a file when it
 * fetches it and again when it checks the data directory, and each night checks every file, most of them unchanged
 * since the night before. The report of each series' last text is kept under the text's SHA-256 digest, so the same
 * text validated again costs a hash (some 10 ms for the whole directory, against 200 ms of rules). Keyed by the
 * series' spec itself: another spec, even of the same id, is validated anew. The reports are frozen, being shared.
 */
import { createHash } from 'node:crypto';
import type { SeriesSpec } from './catalogue.js';
import { validateSeriesText, type FileReport } from './validate.js';

const last = new WeakMap<SeriesSpec, { digest: string; report: FileReport }>();

export function validateSeriesTextOnce(spec: SeriesSpec, text: string): FileReport {
  const digest = createHash('sha256').update(text).digest('base64');
  const kept = last.get(spec);
  if (kept?.digest === digest) return kept.report;
  const report = validateSeriesText(spec, text);
  Object.freeze(report.problems);
  last.set(spec, { digest, report: Object.freeze(report) });
  return report;
}
