/**
 * Where `tradeseal demo` keeps its own embedded store. By default `demo` under TRADESEAL_HOME; the directory is
 * marked as a demo store, so that a user who pointed TRADESEAL_HOME at it to look around with the officers'
 * commands (as the demo's last line suggests) and runs the demo again gets the same store, not a new one
 * nested inside it (`…/demo/demo`), with a second pipeline run.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The marker file in a demo's home. */
export const DEMO_MARKER = '.tradeseal-demo';

export function isDemoHome(dir: string): boolean {
  return existsSync(path.join(dir, DEMO_MARKER));
}

/** The demo's home: `--home` when given, else TRADESEAL_HOME when it is a demo's home, else `demo` under it. */
export function demoHome(home: string, flag: string | undefined): string {
  if (flag !== undefined) return path.resolve(flag);
  return isDemoHome(home) ? path.resolve(home) : path.resolve(home, 'demo');
}

/** Marks `dir` (which exists) as a demo's home. */
export function markDemoHome(dir: string): void {
  if (!isDemoHome(dir)) writeFileSync(path.join(dir, DEMO_MARKER), 'the embedded store of `tradeseal demo`\n');
}
