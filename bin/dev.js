#!/usr/bin/env node
// The `tradeseal` CLI, running the TypeScript sources directly through tsx (see bin/dev-load-options.js).
import { execute } from '@oclif/core';
import { register } from 'tsx/esm/api';

register();
const { devLoadOptions } = await import('./dev-load-options.js');
await execute({ loadOptions: devLoadOptions() });
