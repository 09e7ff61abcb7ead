/**
 * The Node.js versions tradeseal supports are what its dependencies support: package.json's `engines` range
 * lies inside every installed package's own `engines.node` (so `npm install` on a supported version never warns
 * that a dependency wants a newer Node, and `.npmrc`'s engine-strict makes any such dependency an install
 * error), and the CLI refuses an unsupported version with a plain message instead of failing inside a
 * dependency.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { SUPPORTED_NODE, unsupportedNode } from '../bin/node-version.js';

const root = path.resolve(import.meta.dirname, '..');

/** Every installed package (nested ones too) that declares `engines.node`: [directory, range]. */
function declaredEngines(dir: string, out: Array<[string, string]> = []): Array<[string, string]> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === '.bin') continue;
    const at = path.join(dir, entry.name);
    if (entry.name.startsWith('@')) {
      declaredEngines(at, out);
      continue;
    }
    const manifest = path.join(at, 'package.json');
    if (existsSync(manifest)) {
      const engines = (JSON.parse(readFileSync(manifest, 'utf8')) as { engines?: { node?: unknown } }).engines;
      if (typeof engines?.node === 'string') out.push([path.relative(root, at), engines.node]);
    }
    if (existsSync(path.join(at, 'node_modules'))) declaredEngines(path.join(at, 'node_modules'), out);
  }
  return out;
}

describe('the supported Node.js versions', () => {
  it("are inside every installed dependency's own engines range", () => {
    const engines = declaredEngines(path.join(root, 'node_modules'));
    expect(engines.length).toBeGreaterThan(50);
    const outside = engines.filter(([, range]) => semver.validRange(range) !== null && !semver.subset(SUPPORTED_NODE, range));
    expect(outside, `dependencies that want other Node versions than ${SUPPORTED_NODE}`).toEqual([]);
  });

  it('include the Node this runs on, and the CLI names the range when a version is outside it', () => {
    expect(unsupportedNode(process.version)).toBeNull();
    const minimum = semver.minVersion(SUPPORTED_NODE)!;
    expect(unsupportedNode(`v${minimum.version}`)).toBeNull();
    const older = `v${minimum.major}.${Math.max(0, minimum.minor - 1)}.0`;
    expect(unsupportedNode(older)).toContain(`needs Node.js ${SUPPORTED_NODE}`);
    expect(unsupportedNode('v18.20.4')).toContain('this is v18.20.4');
  });
});
