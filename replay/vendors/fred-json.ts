/**
 * The FRED API answer (`/fred/series/observations?file_type=json`) for a bundled CSV file, written
 * independently of pipeline/ingest/fred-format.ts: empty fields become FRED's "." and every observation
 * carries the realtime fields FRED sends. Used by the local FRED server (./fred-server.ts) and the
 * FRED-format tests.
 */
import type { SeriesSpec } from '../../pipeline/ingest/catalogue.js';

export interface FredJsonObservation {
  realtime_start: string;
  realtime_end: string;
  date: string;
  value: string;
}

export interface FredJson {
  realtime_start: string;
  realtime_end: string;
  observation_start: string;
  observation_end: string;
  units: string;
  output_type: number;
  file_type: 'json';
  order_by: 'observation_date';
  sort_order: 'asc';
  count: number;
  offset: number;
  limit: number;
  observations: FredJsonObservation[];
}

const TODAY = '2026-01-02';

export function fredObservationsFromCsv(spec: SeriesSpec, csv: string): FredJsonObservation[] {
  return csv
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((line) => {
      const [date = '', value = ''] = line.split(',');
      return { realtime_start: TODAY, realtime_end: TODAY, date, value: value === spec.missingMarker ? '.' : value };
    });
}

/** One page of the answer: `offset`/`limit` as FRED applies them. */
export function fredPage(all: FredJsonObservation[], offset = 0, limit = 100_000): FredJson {
  const observations = all.slice(offset, offset + limit);
  return {
    realtime_start: TODAY,
    realtime_end: TODAY,
    observation_start: '1600-01-01',
    observation_end: '9999-12-31',
    units: 'lin',
    output_type: 1,
    file_type: 'json',
    order_by: 'observation_date',
    sort_order: 'asc',
    count: all.length,
    offset,
    limit,
    observations,
  };
}

export const fredJsonFromCsv = (spec: SeriesSpec, csv: string): FredJson => fredPage(fredObservationsFromCsv(spec, csv));
