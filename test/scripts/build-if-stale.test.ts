/**
 * `npm start` and `npm run demo` compile only when the build is missing or older than a source: a second run
 * starts at once, and an edited source is never run from a stale build.
 */
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildIsStale } from '../../scripts/build-if-stale.js';

function checkout(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tradeseal-build-'));
  for (const d of ['src/engine', 'commands', 'pipeline', 'dist']) mkdirSync(path.join(dir, d), { recursive: true });
  writeFileSync(path.join(dir, 'tsconfig.json'), '{}');
  writeFileSync(path.join(dir, 'src/engine/authorize.ts'), 'export {};');
  return dir;
}
const at = (file: string, seconds: number): void => utimesSync(file, seconds, seconds);

describe('building only what changed', () => {
  it('builds a checkout that was never built', () => {
    expect(buildIsStale(checkout())).toBe(true);
  });

  it('does not build again when no source is newer than the build', () => {
    const dir = checkout();
    at(path.join(dir, 'src/engine/authorize.ts'), 1_000);
    at(path.join(dir, 'tsconfig.json'), 1_000);
    writeFileSync(path.join(dir, 'dist/.build-stamp'), 'x');
    at(path.join(dir, 'dist/.build-stamp'), 2_000);
    expect(buildIsStale(dir)).toBe(false);
  });

  it('builds again when a source, however deep, or the compiler settings changed after the build', () => {
    const dir = checkout();
    writeFileSync(path.join(dir, 'dist/.build-stamp'), 'x');
    at(path.join(dir, 'dist/.build-stamp'), 2_000);
    at(path.join(dir, 'tsconfig.json'), 1_000);
    at(path.join(dir, 'src/engine/authorize.ts'), 3_000);
    expect(buildIsStale(dir)).toBe(true);
    at(path.join(dir, 'src/engine/authorize.ts'), 1_000);
    at(path.join(dir, 'tsconfig.json'), 3_000);
    expect(buildIsStale(dir)).toBe(true);
  });

  it.each(['bench/engine-server.ts', 'bench/pipeline-run.ts'])(
    "builds again when a benchmark's compiled part (%s, built with the app) changed after the build",
    (file) => {
      const dir = checkout();
      mkdirSync(path.join(dir, 'bench'));
      for (const f of ['bench/engine-server.ts', 'bench/pipeline-run.ts', 'bench/engine.ts']) writeFileSync(path.join(dir, f), 'export {};');
      for (const f of ['tsconfig.json', 'src/engine/authorize.ts', 'bench/engine-server.ts', 'bench/pipeline-run.ts']) at(path.join(dir, f), 1_000);
      writeFileSync(path.join(dir, 'dist/.build-stamp'), 'x');
      at(path.join(dir, 'dist/.build-stamp'), 2_000);
      // Another benchmark file is not part of the build.
      at(path.join(dir, 'bench/engine.ts'), 3_000);
      expect(buildIsStale(dir)).toBe(false);
      at(path.join(dir, file), 3_000);
      expect(buildIsStale(dir)).toBe(true);
    },
  );
});
