/**
 * Where the demo keeps its store: `demo` under TRADESEAL_HOME, or TRADESEAL_HOME itself once a user has pointed
 * it at the demo's store (as the demo's summary tells them to), so running the demo again from there reuses the
 * store instead of nesting a new one (`…/demo/demo`) and running the pipeline again.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoHome, isDemoHome, markDemoHome } from '../../src/demo/home.js';

const fresh = (): string => mkdtempSync(path.join(tmpdir(), 'tradeseal-demo-home-'));

describe("the demo's home", () => {
  it("is demo under TRADESEAL_HOME for a home that is not a demo's", () => {
    const home = fresh();
    expect(demoHome(home, undefined)).toBe(path.join(home, 'demo'));
  });

  it("is TRADESEAL_HOME itself once it is the demo's store, so a second run reuses it", () => {
    const home = fresh();
    const first = demoHome(home, undefined);
    mkdirSync(first);
    markDemoHome(first);
    expect(isDemoHome(first)).toBe(true);
    // The user follows the summary's `export TRADESEAL_HOME=<demo home>` and runs the demo again.
    expect(demoHome(first, undefined)).toBe(first);
  });

  it('is --home when given, whatever TRADESEAL_HOME is', () => {
    const home = fresh();
    markDemoHome(home);
    expect(demoHome(home, 'elsewhere')).toBe(path.resolve('elsewhere'));
  });
});
