/**
 * `bin/dev.js` and the tests run the CLI's TypeScript sources, even where `npm run build` has written
 * oclif.manifest.json for dist/: oclif reads a root's manifest whatever `ignoreManifest` says, and that manifest
 * would run the compiled (possibly stale, possibly missing) commands instead of the sources being edited.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Config } from '@oclif/core';
import { register } from 'tsx/esm/api';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a JavaScript module of bin/, shared with bin/dev.js
import { devLoadOptions } from '../../bin/dev-load-options.js';

/** A checkout with a `hello` command in its sources and another in a build described by oclif.manifest.json. */
function checkoutWithBuild(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tradeseal-dev-sources-'));
  for (const d of ['commands', 'src', 'dist/commands']) mkdirSync(path.join(dir, d), { recursive: true });
  const pjson = { name: 'fixture-cli', version: '1.0.0', type: 'module', oclif: { bin: 'fixture', commands: './dist/commands' } };
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pjson));
  const command = (from: string) =>
    `import { Command } from '@oclif/core';\nexport default class Hello extends Command {\n  static summary = 'from ${from}';\n  async run() {}\n}\n`;
  writeFileSync(path.join(dir, 'commands/hello.ts'), command('the sources'));
  writeFileSync(path.join(dir, 'dist/commands/hello.js'), command('the build'));
  const cached = { id: 'hello', summary: 'from the build', flags: {}, args: {}, isESM: true, relativePath: ['dist', 'commands', 'hello.js'] };
  writeFileSync(path.join(dir, 'oclif.manifest.json'), JSON.stringify({ version: '1.0.0', commands: { hello: cached } }));
  // The fixture's commands import @oclif/core as the CLI's do: from the repository's node_modules.
  mkdirSync(path.join(dir, 'node_modules/@oclif'), { recursive: true });
  symlinkSync(path.resolve(import.meta.dirname, '../../node_modules/@oclif/core'), path.join(dir, 'node_modules/@oclif/core'));
  return dir;
}

describe('the CLI run from its sources', () => {
  it("loads the sources' commands, not the build's that oclif.manifest.json describes", async () => {
    register();
    const dir = checkoutWithBuild();
    const config = await Config.load(devLoadOptions(dir));
    const hello = config.findCommand('hello', { must: true });
    expect(hello.summary).toBe('from the sources');
    expect((await hello.load()).summary).toBe('from the sources');
  }, 30_000);
});
