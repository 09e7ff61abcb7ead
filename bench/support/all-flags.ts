/**
 * The command line of bench/all.ts: its own flags (`--only`, `--results`) and those it passes through to the
 * benchmarks. Pure. No benchmark takes a positional argument, so a flag followed by an argument that is not a
 * flag takes it as its value (`--seconds 5`, as `--seconds=5`); a flag followed by a flag is a switch.
 */
import path from 'node:path';
import type { BenchmarkName } from './summary.js';

export const ORDER: BenchmarkName[] = ['engine', 'hot-agent', 'pipeline', 'signals', 'quant', 'signal', 'dropcopy'];
/** Flags the load benchmarks take (the drop copy's authorize comparison: seconds and connections); any other flag goes to the engine alone. */
const SHARED: Record<string, BenchmarkName[]> = {
  seconds: ['engine', 'hot-agent', 'signals', 'dropcopy'],
  connections: ['engine', 'hot-agent', 'signals', 'dropcopy'],
  pool: ['engine', 'hot-agent', 'signals'],
};

export interface BenchmarkPlan {
  only: BenchmarkName[];
  results: string;
  flags: Record<BenchmarkName, string[]>;
}

/** Splits the command line: this command's own flags, and each benchmark's (a flag followed by a non-flag takes it as value). */
export function planBenchmarks(argv: readonly string[], defaultResults: string): BenchmarkPlan {
  const out: BenchmarkPlan = {
    only: [...ORDER],
    results: defaultResults,
    flags: { engine: [], 'hot-agent': [], pipeline: [], signals: [], quant: [], signal: [], dropcopy: [] },
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}: every argument is a --flag, with its value after it`);
    const [name, inline] = arg.slice(2).split(/=(.*)/s) as [string, string | undefined];
    const next = argv[i + 1];
    const value = inline ?? (next !== undefined && !next.startsWith('--') ? (i++, next) : undefined);
    if (name === 'only' || name === 'results') {
      if (value === undefined) throw new Error(`--${name} needs a value`);
      if (name === 'results') out.results = path.resolve(value);
      else {
        const names = value.split(',').map((n) => n.trim());
        const unknown = names.filter((n) => !ORDER.includes(n as BenchmarkName));
        if (unknown.length > 0) throw new Error(`--only: unknown benchmark ${unknown.join(', ')} (known: ${ORDER.join(', ')})`);
        out.only = ORDER.filter((n) => names.includes(n));
      }
      continue;
    }
    if (name === 'out') throw new Error('--out: each benchmark writes <name>-latest.json into --results DIR');
    for (const target of SHARED[name] ?? ['engine']) {
      // The engine measures at a list of connection counts; the signal service and the drop copy at one, the list's first.
      const own = target !== 'engine' && value !== undefined ? (value.split(',')[0] as string) : value;
      out.flags[target].push(`--${name}`, ...(own === undefined ? [] : [own]));
    }
  }
  return out;
}
