/**
 * The order test files start in: first the files that take a minute or more by design, longest first, then
 * vitest's own order (the longest of the last run first, or the largest file when there is no last run, as on
 * a fresh clone). A long file started last would leave one worker busy while the others have nothing left.
 *
 * The slow files and why each must stay slow: ./slow-files.ts (docs/testing.md lists them).
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { SLOW_BY_DESIGN } from './slow-files.js';

const rank = new Map(SLOW_BY_DESIGN.map((s, i) => [s.file, i]));

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rankOf = (spec: TestSpecification): number => rank.get(relative(spec.moduleId)) ?? SLOW_BY_DESIGN.length;
    // A stable sort: files of equal rank keep vitest's order.
    return sorted
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => rankOf(a.spec) - rankOf(b.spec) || a.i - b.i)
      .map(({ spec }) => spec);
  }
}

const relative = (moduleId: string): string => moduleId.slice(moduleId.indexOf('/test/') + 1);
