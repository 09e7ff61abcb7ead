/**
 * The test files that are slow by design, longest first, each with the reason its time is the point: the
 * sequencer (./sequencer.ts) starts them first, and docs/testing.md lists them (`npm run docs` writes the table).
 */
export const SLOW_BY_DESIGN: ReadonlyArray<{ file: string; why: string }> = [
  {
    file: 'test/docs/outputs.test.ts',
    why: 'every console block of README.md and docs/*.md run as a reader types it, on the CLI as built, after a pipeline run that publishes the bundled history',
  },
  {
    file: 'test/docs/check/check.test.ts',
    why: 'the documented-output checker end to end: a pipeline run, then a sample document checked, updated and checked again, a server started and stopped',
  },
  {
    file: 'test/reliability/hostile-bodies.test.ts',
    why: 'the guarantee is its count: 10,000 hostile bodies on every write endpoint of a real server process',
  },
  {
    file: 'test/replay/month.test.ts',
    why: 'a month of nights on simulated time, each a fetch, a check and a pipeline run on a real store, then a full run to compare: the month is the proof',
  },
  {
    file: 'test/pipeline/model/walk-forward.test.ts',
    why: "two walk-forwards over the whole bundled history, the second on the pipeline's threads: the determinism proof is about the whole run; two more to a cut and a year past it for no look-ahead",
  },
  {
    file: 'test/cli/serve.test.ts',
    why: 'a pipeline run over ten years on the embedded store, long enough for a server started meanwhile to find it owning the store',
  },
  {
    file: 'test/cli/demo.test.ts',
    why: '`tradeseal demo` on its own embedded store, a copy of the published template (a pipeline run it waits for when it asks first), then every case, FIX drop copy included',
  },
  { file: 'test/pipeline/run.test.ts', why: 'a full run, an incremental one and a full recompute over the bundled history, compared day by day' },
  { file: 'test/cli/pipeline-safety.test.ts', why: 'pipeline runs on the embedded store, one of them killed half-way by SIGKILL' },
  { file: 'test/cli/pipeline.test.ts', why: 'the pipeline commands as an operator runs them, the schedule waiting for its cron to fire' },
  { file: 'test/pipeline/safety.test.ts', why: 'what-if, backfill and forced runs of the pipeline on a real store' },
  {
    file: 'test/reliability/slow-clients.test.ts',
    why: "the guarantee is its count: 10,000 slow connections held open from one address, paced to the server's accept rate, while health and an authorize are timed",
  },
  {
    file: 'test/pipeline/input-history.test.ts',
    why: 'pipeline runs refused and accepted on a real store, and a full recompute of the history from changed files',
  },
  { file: 'test/reliability/store-outage.test.ts', why: 'PostgreSQL stopped and frozen for 10 s under load: the outage is the scenario' },
];

/** The Markdown table of docs/testing.md's "Slow by design". */
export function slowFilesTable(): string {
  return ['| file | why |', '|---|---|', ...SLOW_BY_DESIGN.map((s) => `| \`${s.file}\` | ${s.why} |`)].join('\n');
}
