/**
 * Every run of the suite ends with its wall time against the ten-minute budget (test/setup/slowest-reporter.ts):
 * its share when within it, and by how much when over it, with where to read what to do.
 */
import { describe, expect, it } from 'vitest';
import { budgetLine, SUITE_BUDGET_S } from '../setup/slowest-reporter.js';

describe("the suite's budget line", () => {
  it('states the budget and the share of it a run within it took', () => {
    expect(SUITE_BUDGET_S).toBe(600);
    expect(budgetLine(512_340)).toBe("the suite's budget is 600 s of wall time: this run took 512.3 s, 85 % of it");
  });

  it('says OVER, by how much, and where to look, for a run past it', () => {
    const line = budgetLine(645_000);
    expect(line).toContain('this run took 645.0 s, OVER it by 45.0 s (108 %)');
    expect(line).toContain('docs/testing.md, "Keeping it under budget"');
  });
});
