#!/usr/bin/env node
// The `tradeseal` CLI, running the compiled build in dist/ (`npm run build`).
import { requireSupportedNode } from './node-version.js';

requireSupportedNode();
// This process runs one command and ends (src/cli/brief-wasm.ts: a brief command may then set V8 flags for it).
globalThis[Symbol.for('tradeseal.oneCommandProcess')] = true;
const { execute } = await import('@oclif/core');

await execute({ dir: import.meta.url });
