// The Node.js versions tradeseal runs on are those of package.json's `engines` (the range every dependency
// supports; test/node-version.test.ts checks each installed package against it). The CLI says so plainly and
// stops on another version, instead of failing later inside a dependency.
import { readFileSync } from 'node:fs';
import semver from 'semver';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** The supported range, e.g. `^20.19.0 || >=22.12.0`. */
export const SUPPORTED_NODE = manifest.engines.node;

/** Null when `version` is supported, else the message to print. */
export function unsupportedNode(version) {
  if (semver.satisfies(version, SUPPORTED_NODE)) return null;
  return `tradeseal needs Node.js ${SUPPORTED_NODE} (its dependencies do); this is ${version}. Install a supported version (https://nodejs.org) and run npm install again.`;
}

/** Exits with status 1 and the message on an unsupported version. */
export function requireSupportedNode() {
  const message = unsupportedNode(process.version);
  if (message === null) return;
  process.stderr.write(`${message}\n`);
  process.exit(1);
}
