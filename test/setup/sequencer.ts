/**
 * The order test files start in: first the files that take a minute or more by design, longest first, then
 * vitest's own order (the longest of the last run first, or the largest file when there is no last run, as on
 * a fresh clone). A long file started last would leave one worker busy while the others have nothing left.
 *
 * Each slow file is named here with why it must stay slow; docs/testing.md shows what they cost.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files slow by design, longest first, each with the reason its time is the point. */
export const SLOW_BY_DESIGN: ReadonlyArray<{ file: string; why: string }> = [
  { file: 'test/reliability/hostile-bodies.test.ts', why: 'the guarantee is its count: 10,000 hostile bodies on every write endpoint of a real server process' },
  { file: 'test/pipeline/model/walk-forward.test.ts', why: 'four walk-forwards over the whole bundled history: the no-look-ahead and determinism proofs are about the whole run' },
  { file: 'test/cli/serve.test.ts', why: 'a full pipeline run on the embedded store, long enough for a server started meanwhile to find it owning the store' },
  { file: 'test/cli/demo.test.ts', why: '`tradeseal demo` as a new user runs it: the whole pipeline on its own embedded store, then every case' },
  { file: 'test/pipeline/run.test.ts', why: 'a full run, an incremental one and a full recompute over the bundled history, compared day by day' },
  { file: 'test/cli/pipeline-safety.test.ts', why: 'pipeline runs on the embedded store, one of them killed half-way by SIGKILL' },
  { file: 'test/cli/pipeline.test.ts', why: 'the pipeline commands as an operator runs them, the schedule waiting for its cron to fire' },
  { file: 'test/pipeline/safety.test.ts', why: 'what-if, backfill and forced runs of the pipeline on a real store' },
  { file: 'test/reliability/store-outage.test.ts', why: 'PostgreSQL stopped and frozen for 10 s under load: the outage is the scenario' },
];

const rank = new Map(SLOW_BY_DESIGN.map((s, i) => [s.file, i]));

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rankOf = (spec: TestSpecification): number => rank.get(relative(spec.moduleId)) ?? SLOW_BY_DESIGN.length;
    // A stable sort: files of equal rank keep vitest's order.
    return sorted.map((spec, i) => ({ spec, i })).sort((a, b) => rankOf(a.spec) - rankOf(b.spec) || a.i - b.i).map(({ spec }) => spec);
  }
}

const relative = (moduleId: string): string => moduleId.slice(moduleId.indexOf('/test/') + 1);
