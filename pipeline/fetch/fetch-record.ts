/**
 * What the data directory's files were fetched from: `FETCHED.json` beside the CSV files, rewritten (atomically)
 * by every `tradeseal pipeline fetch`. For each file: the source and its address (never a key), when it was last
 * fetched and when a fetch last changed it, the SHA-256 of the file as written, its rows and last date, and what
 * that change brought: how many rows were new, and every row the source served differently from what the file
 * held before (the revisions, field by field). A fetch that changes nothing keeps them, so a revision seen once
 * stays on record until the file changes again. A run copies the
 * entry of each file into its data vintage (../features/vintage.ts), and says so when the file no longer has the
 * digest it was fetched with (it was edited since). The bundled files have no entry: their source is
 * `data/macro/PROVENANCE.md`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../src/core/atomic-file.js';

export const FETCH_RECORD_FILE = 'FETCHED.json';

/** A row the source served differently from the file: one per field that changed, or a row that went missing. */
export interface Revision {
  date: string;
  /** The column (`value`, `close`, `dividend`, …), or `row` for a row the source no longer serves. */
  field: string;
  /** As the file held it, and as the source served it (null: no such row). */
  was: string | null;
  now: string | null;
}

export interface FetchedFile {
  series: string;
  file: string;
  /** `fred`, `yahoo` or `eodhd`. */
  source: string;
  /** Where the rows came from, without any key. */
  source_url: string;
  /** When it was last fetched: ISO 8601, UTC. */
  fetched_at: string;
  /** When a fetch last changed the file (`added` and `revisions` are that fetch's); ISO 8601, UTC. */
  changed_at: string;
  /** SHA-256 of the file as written, lower-case hex. */
  sha256: string;
  rows: number;
  last_date: string | null;
  /** Rows the file did not have before the change of `changed_at`. */
  added: number;
  revisions: Revision[];
}

export interface FetchRecord {
  version: 1;
  /** By file name (`SPY.csv`). */
  files: Record<string, FetchedFile>;
}

const empty = (): FetchRecord => ({ version: 1, files: {} });

/** The record of `dir`; an empty one when there is none (the bundled files), or when it cannot be read as one. */
export async function readFetchRecord(dir: string): Promise<FetchRecord> {
  let text: string;
  try {
    text = await readFile(path.join(dir, FETCH_RECORD_FILE), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return empty();
    throw e;
  }
  try {
    const parsed = JSON.parse(text) as Partial<FetchRecord>;
    return parsed.version === 1 && parsed.files && typeof parsed.files === 'object' ? { version: 1, files: parsed.files } : empty();
  } catch {
    // A record that is not JSON says nothing about the files: the vintage then names no source for them.
    return empty();
  }
}

/**
 * Adds `entries` to the record of `dir` (other files' entries stay) and writes it atomically. An entry whose fetch
 * changed nothing (the same digest, nothing added or revised) keeps the change the record held.
 */
export async function recordFetches(dir: string, entries: readonly FetchedFile[]): Promise<FetchRecord> {
  const record = await readFetchRecord(dir);
  for (const e of entries) {
    const held = record.files[e.file];
    const unchanged = held !== undefined && held.sha256 === e.sha256 && e.added === 0 && e.revisions.length === 0;
    record.files[e.file] = unchanged ? { ...e, changed_at: held.changed_at ?? held.fetched_at, added: held.added, revisions: held.revisions } : e;
  }
  const sorted: FetchRecord = { version: 1, files: Object.fromEntries(Object.entries(record.files).sort(([a], [b]) => (a < b ? -1 : 1))) };
  await writeFileAtomic(path.join(dir, FETCH_RECORD_FILE), `${JSON.stringify(sorted, null, 2)}\n`);
  return sorted;
}
