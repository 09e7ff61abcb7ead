/**
 * A vitest reporter that closes every run with where its time went: the 20 slowest test files and the 20
 * slowest tests, as Markdown tables (docs/testing.md keeps one such table from before and after the suite was
 * made faster), the run's wall time against the time its files took one after another, and that wall time
 * against the suite's budget (SUITE_BUDGET_S: `npm test` on the reference 2-core machine), so a run that crosses it
 * says so where everyone looks.
 *
 * A file's time is what it held a worker for: vitest preparing it, importing it (collection), its setup
 * files, then its tests and hooks. Tests of a file run one after another, files on `maxWorkers` workers at once.
 */
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { MAIN_PROJECT } from './projects.js';

const SHOWN = 20;

/** The whole suite's budget, in seconds of wall time on the reference machine (2 cores): ten minutes. */
export const SUITE_BUDGET_S = 600;

/** The run's wall time against the budget: within it, with its share, or over it by how much. */
export function budgetLine(wallMs: number): string {
  const s = wallMs / 1000;
  const share = Math.round((s / SUITE_BUDGET_S) * 100);
  return s <= SUITE_BUDGET_S
    ? `the suite's budget is ${SUITE_BUDGET_S} s of wall time: this run took ${s.toFixed(1)} s, ${share} % of it`
    : `the suite's budget is ${SUITE_BUDGET_S} s of wall time: this run took ${s.toFixed(1)} s, OVER it by ${(s - SUITE_BUDGET_S).toFixed(1)} s (${share} %); docs/testing.md, "Keeping it under budget", says what to do`;
}

interface Timed {
  name: string;
  ms: number;
  tests?: number;
}

export default class SlowestReporter implements Reporter {
  private started = 0;

  onTestRunStart(): void {
    this.started = performance.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const wall = performance.now() - this.started;
    // A file of the second project (the store tests on PGlite) is named with its project.
    const nameOf = (m: TestModule, name: string): string => (m.project.name === MAIN_PROJECT ? name : `${name} [${m.project.name}]`);
    const files: Timed[] = modules.map((m) => {
      const d = m.diagnostic();
      return {
        name: nameOf(m, m.relativeModuleId),
        ms: d.prepareDuration + d.collectDuration + d.setupDuration + d.duration,
        tests: [...m.children.allTests()].length,
      };
    });
    const tests: Timed[] = modules.flatMap((m) =>
      [...m.children.allTests()].map((t) => ({ name: nameOf(m, `${path.basename(m.relativeModuleId)} › ${t.fullName}`), ms: t.diagnostic()?.duration ?? 0 })),
    );
    if (files.length === 0) return;
    const serial = files.reduce((sum, f) => sum + f.ms, 0);
    const lines = [
      '',
      `Slowest ${Math.min(SHOWN, files.length)} of ${files.length} test files (their time on a worker)`,
      '',
      '| s | tests | file |',
      '|---:|---:|---|',
      ...slowest(files).map((f) => `| ${seconds(f.ms)} | ${f.tests} | ${f.name} |`),
      '',
      `Slowest ${Math.min(SHOWN, tests.length)} of ${tests.length} tests`,
      '',
      '| s | test |',
      '|---:|---|',
      ...slowest(tests).map((t) => `| ${seconds(t.ms)} | ${cell(t.name)} |`),
      '',
      `${files.length} files, ${tests.length} tests: ${seconds(wall)} s of wall time for ${seconds(serial)} s of files one after another`,
      budgetLine(wall),
      '',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}

const slowest = (items: Timed[]): Timed[] => [...items].sort((a, b) => b.ms - a.ms).slice(0, SHOWN);
const seconds = (ms: number): string => (ms / 1000).toFixed(1);
/** A test name as a Markdown cell: no pipes, at most 140 characters. */
const cell = (name: string): string => {
  const flat = name.replace(/\|/g, '/').replace(/\s+/g, ' ');
  return flat.length > 140 ? `${flat.slice(0, 139)}…` : flat;
};
