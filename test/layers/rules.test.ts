/**
 * The layer rules (.dependency-cruiser.cjs) hold on the application's code, `src/`, `pipeline/` and `commands/`: no
 * import cycle, no arrow down-to-up or between the two services, nothing outside a layer, the HTTP server's modules
 * reaching no DuckDB, nothing shipped importing tests or scripts; and what the CLI loads at start
 * (.dependency-cruiser-startup.cjs): no command or hook reaching DuckDB, Fastify, jspurefix or ink through a static
 * import, which would make every start of that command, `--help` included, pay for them. Run by dependency-cruiser
 * itself, as `npm run layers` does. The rules are shown to bite on test/fixtures/layers/, a tree that breaks each
 * once (test/fixtures/layers/commands/light.ts imports Fastify the allowed ways: a type, and inside the function).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const depcruise = path.join(root, 'node_modules/.bin/depcruise');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
  cycle?: Array<{ name: string }>;
}
interface Cruise {
  summary: { violations: Violation[]; totalCruised: number };
}

/**
 * One cruise. dependency-cruiser's cache (by content: a changed, added or removed file is cruised again, and a
 * change of the rules voids it) is kept per tree and rules under node_modules/.cache, so a second run re-reads only
 * what changed; a fresh checkout cruises everything.
 */
async function cruise(cwd: string, dirs: string[], config = '.dependency-cruiser.cjs'): Promise<Cruise> {
  const cache = path.join(
    root,
    'node_modules/.cache/dependency-cruiser',
    `${path.relative(root, cwd).replaceAll('/', '_') || 'app'}-${config}-${dirs.join('+')}`.replaceAll('/', '_'),
  );
  // Exit status 1 means violations were found: the JSON is still written.
  const run = promisify(execFile)(
    depcruise,
    [...dirs, '--config', path.join(root, config), '--output-type', 'json', '--cache', cache, '--cache-strategy', 'content'],
    {
      cwd,
      maxBuffer: 256 << 20,
    },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return JSON.parse((await run).stdout) as Cruise;
}

const described = (v: Violation): string => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((c) => c.name).join(' → ')})` : ''}`;

describe('the layers', () => {
  it('hold on the application: no cycle, no forbidden arrow', async () => {
    const result = await cruise(root, ['src', 'pipeline', 'commands']);
    expect(result.summary.totalCruised).toBeGreaterThan(500);
    expect(result.summary.violations.map(described)).toEqual([]);
  }, 120_000);

  it('find each kind of breach in a tree made of them', async () => {
    const result = await cruise(path.join(root, 'test/fixtures/layers'), ['src', 'pipeline']);
    const found = result.summary.violations.map((v) => `${v.rule.name}: ${v.from}`).sort();
    expect(found).toEqual([
      'http-without-duckdb: src/http/h.ts',
      'layer-core: src/core/a.ts',
      'layer-engine: src/engine/e.ts',
      'no-circular: src/signals/s.ts',
      'no-unlayered: src/misc/m.ts',
      'not-to-dev-tooling: src/store/st.ts',
    ]);
  }, 60_000);
});

describe('what a command loads at start', () => {
  it('reaches no DuckDB, Fastify, jspurefix or ink from any command or hook', async () => {
    const result = await cruise(root, ['commands', 'src/cli/hooks'], '.dependency-cruiser-startup.cjs');
    expect(result.summary.totalCruised).toBeGreaterThan(300);
    expect(result.summary.violations.map(described)).toEqual([]);
  }, 120_000);

  it('finds a command importing one of them at load, not one importing its types or importing it when it runs', async () => {
    const result = await cruise(path.join(root, 'test/fixtures/layers'), ['commands', 'src'], '.dependency-cruiser-startup.cjs');
    expect(result.summary.violations.map((v) => `${v.rule.name}: ${v.from}`)).toEqual(['cli-starts-light: commands/heavy.ts']);
  }, 60_000);
});
