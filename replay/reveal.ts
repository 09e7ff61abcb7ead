/**
 * What each source has at a moment of simulated time: every row of the bundled files whose release rule says it
 * was out by then (the catalogue's rules, pipeline/ingest/catalogue.ts, the same ones the pipeline holds its
 * inputs to), with the revisions a scenario schedules from their instant on. The local vendors' servers
 * (./vendors/) serve these rows in their documented formats; the data directory a replay starts from is cut the
 * same way (`cutText`).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CATALOGUE, seriesSpec, type SeriesSpec } from '../pipeline/ingest/catalogue.js';
import { releasedAt } from '../pipeline/release/rules.js';
import type { DailyBar } from '../pipeline/sources/market-source.js';
import { barsFromCsv, type BarProvider } from './vendors/bundled-bars.js';
import { fredObservationsFromCsv, type FredJsonObservation } from './vendors/fred-json.js';
import type { FredProvider } from './vendors/fred-server.js';

/** A value a source changes for an observation it published before: from `atMs` on it serves `value`. */
export interface ScheduledRevision {
  series: string;
  date: string;
  /** The new value as the source writes it (FRED's text). */
  value: string;
  atMs: number;
}

/** When each observation is out, by rule and date: a vendor asked for a series looks at every row it holds. */
const releases = new WeakMap<SeriesSpec['release'], Map<string, number>>();

function releasedMs(spec: SeriesSpec, date: string): number {
  let byDate = releases.get(spec.release);
  if (!byDate) releases.set(spec.release, (byDate = new Map()));
  let ms = byDate.get(date);
  if (ms === undefined) byDate.set(date, (ms = releasedAt(spec.release, date)));
  return ms;
}

const released = (spec: SeriesSpec, date: string, nowMs: number): boolean => releasedMs(spec, date) <= nowMs;

/** The text of a catalogue file with only the rows out by `nowMs`, every kept line as it was. */
export function cutText(spec: SeriesSpec, text: string, nowMs: number): string {
  const [header, ...lines] = text.trimEnd().split('\n');
  return `${[header, ...lines.filter((l) => released(spec, l.slice(0, 10), nowMs))].join('\n')}\n`;
}

/** The bundled files, read once, and what is out of them at any instant. */
export class Releases {
  private constructor(
    private readonly texts: ReadonlyMap<string, string>,
    private readonly fred: ReadonlyMap<string, FredJsonObservation[]>,
    private readonly bars: ReadonlyMap<string, DailyBar[]>,
    private readonly now: () => number,
    private readonly revisions: readonly ScheduledRevision[],
  ) {}

  static async load(dir: string, now: () => number, revisions: readonly ScheduledRevision[] = []): Promise<Releases> {
    const texts = new Map<string, string>();
    const fred = new Map<string, FredJsonObservation[]>();
    const bars = new Map<string, DailyBar[]>();
    for (const spec of CATALOGUE) {
      const text = await readFile(path.join(dir, spec.file), 'utf8');
      texts.set(spec.id, text);
      if (spec.source === 'fred') fred.set(spec.id, fredObservationsFromCsv(spec, text));
      else bars.set(spec.id, barsFromCsv(spec.id, text));
    }
    return new Releases(texts, fred, bars, now, revisions);
  }

  /** A data directory's file as it could have been fetched at `nowMs`. */
  fileAt(series: string, nowMs: number): string {
    return cutText(seriesSpec(series), this.texts.get(series) ?? '', nowMs);
  }

  /** FRED as it answers now: the observations out, each with the newest revision scheduled by now. */
  readonly fredProvider: FredProvider = {
    observations: (id) => {
      const all = this.fred.get(id);
      if (!all) return undefined;
      const spec = seriesSpec(id);
      const now = this.now();
      const revised = new Map(this.revisions.filter((r) => r.series === id && r.atMs <= now).map((r) => [r.date, r.value]));
      return all.filter((o) => released(spec, o.date, now)).map((o) => (revised.has(o.date) ? { ...o, value: revised.get(o.date)! } : o));
    },
  };

  /** A market vendor as it answers now: the bars whose close is out. */
  readonly marketProvider: BarProvider = {
    bars: (series) => {
      const all = this.bars.get(series);
      if (!all) return undefined;
      const spec = seriesSpec(series);
      const now = this.now();
      return all.filter((b) => released(spec, b.date, now));
    },
  };
}
