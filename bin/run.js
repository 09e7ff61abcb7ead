#!/usr/bin/env node
// The `tradeseal` CLI, running the compiled build in dist/ (`npm run build`).
import { execute } from '@oclif/core';

await execute({ dir: import.meta.url });
