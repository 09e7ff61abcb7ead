#!/usr/bin/env node
// The `tradeseal` CLI, running the TypeScript sources directly through tsx (see bin/dev-load-options.js), with
// a command manifest kept while the sources are unchanged (bin/dev-manifest.js).
import { requireSupportedNode } from './node-version.js';

requireSupportedNode();
// This process runs one command and ends (src/cli/brief-wasm.ts: a brief command may then set V8 flags for it).
globalThis[Symbol.for('tradeseal.oneCommandProcess')] = true;
const { execute } = await import('@oclif/core');
import { register } from 'tsx/esm/api';

register();
const { devLoadOptions } = await import('./dev-load-options.js');
const { withDevManifest } = await import('./dev-manifest.js');
await execute({ loadOptions: await withDevManifest(devLoadOptions()) });
