/**
 * The input digests in the store (migration 0018_input_digests.sql): written with a run's publication, read
 * back to check the next run's inputs against what the published days were computed from. `pipeline run`
 * and `pipeline check` ask the same question here, so they give the same answer.
 */
import type postgres from 'postgres';
import type { Sql } from '../../store/driver.js';
import {
  differingBlocks,
  digestInputs,
  inputChanges,
  type InputChange,
  type InputDigests,
  type InputRows,
  type SeriesDigest,
} from '../../../pipeline/publish/input-digests.js';

/** The inputs against the published history, as of the newest published run. */
export type InputCheck =
  /** Nothing is published yet: there is nothing to compare with. */
  | { status: 'nothing_published' }
  /** The newest published run records no digests (published before they were kept). */
  | { status: 'not_recorded'; run_id: string }
  /** The run's cut ends before the recorded day: it cannot extend the history anyway (it would remove days). */
  | { status: 'not_comparable'; run_id: string; through: string }
  | { status: 'unchanged'; run_id: string; through: string }
  | { status: 'changed'; run_id: string; through: string; changes: InputChange[] };

const CHUNK = 500;

/** Records `digests` as what run `runId` read; blocks already in the store are kept as they are. */
export async function recordInputDigests(tx: postgres.ReservedSql, runId: string, digests: InputDigests): Promise<void> {
  // Only the blocks the store lacks are sent: a nightly run's are the current year's, not the whole history.
  const hashes = [...digests.blocks.keys()];
  const kept = new Set<string>();
  for (let i = 0; i < hashes.length; i += CHUNK) {
    const rows = await tx<Array<{ sha256: string }>>`select sha256 from input_blocks where sha256 in ${tx(hashes.slice(i, i + CHUNK))}`;
    for (const r of rows) kept.add(r.sha256);
  }
  const blocks = [...digests.blocks].filter(([sha256]) => !kept.has(sha256)).map(([sha256, body]) => ({ sha256, body }));
  for (let i = 0; i < blocks.length; i += CHUNK) {
    await tx`insert into input_blocks ${tx(blocks.slice(i, i + CHUNK))} on conflict (sha256) do nothing`;
  }
  const rows = digests.series.map((s) => ({ run_id: runId, series: s.series, through: s.through, rows: s.rows, sha256: s.sha256, years: tx.json(s.years) }));
  if (rows.length > 0) await tx`insert into run_input_digests ${tx(rows as never)}`;
}

/** The newest published run and the digests it recorded (none for a run published before they were kept). */
async function newestRecord(sql: Sql): Promise<{ run_id: string; digests: SeriesDigest[] } | null> {
  const [run] = await sql<Array<{ run_id: string }>>`
    select run_id from model_runs where status = 'published' order by finished_at desc nulls last, started_at desc limit 1`;
  if (!run) return null;
  const digests = await sql<SeriesDigest[]>`
    select series, through::text as through, rows, sha256, years from run_input_digests where run_id = ${run.run_id} order by series`;
  return { run_id: run.run_id, digests };
}

/**
 * Checks `inputs` (the rows a run read, usable as of `asOf`, or all of them when null) against the digests
 * of the newest published run. Only the rows usable on or before that run's last published day are compared.
 */
export async function checkInputs(sql: Sql, inputs: InputRows, asOf: string | null): Promise<InputCheck> {
  const [published] = await sql<Array<{ any: boolean }>>`select exists (select 1 from signal_days) as any`;
  if (!published?.any) return { status: 'nothing_published' };
  const record = await newestRecord(sql);
  if (!record) return { status: 'nothing_published' };
  const through = record.digests[0]?.through;
  if (through === undefined) return { status: 'not_recorded', run_id: record.run_id };
  if (asOf !== null && asOf < through) return { status: 'not_comparable', run_id: record.run_id, through };
  const now = digestInputs(inputs, through);
  const needed = differingBlocks(record.digests, now);
  const rows =
    needed.length === 0 ? [] : await sql<Array<{ sha256: string; body: string }>>`select sha256, body from input_blocks where sha256 in ${sql(needed)}`;
  const changes = inputChanges(record.digests, now, new Map(rows.map((r) => [r.sha256, r.body])));
  return changes.length === 0 ? { status: 'unchanged', run_id: record.run_id, through } : { status: 'changed', run_id: record.run_id, through, changes };
}

/** The notice of a history whose runs recorded no digests: this run's are the first. */
export const NOT_RECORDED_NOTICE =
  'the published history has no input digests (its runs were published before they were recorded): this run records them from the current files, and later runs are checked against those';
