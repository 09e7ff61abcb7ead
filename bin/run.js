#!/usr/bin/env node
// The `tradeseal` CLI, running the compiled build in dist/ (`npm run build`).
import { requireSupportedNode } from './node-version.js';

requireSupportedNode();
const { execute } = await import('@oclif/core');

await execute({ dir: import.meta.url });
