/**
 * Where a benchmark writes its figures as JSON (`--out FILE`, default `bench/results/<name>-latest.json`), for
 * bench/all.ts to gather into one table. Every file carries when and on what it was made: a figure means
 * something only next to its machine.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const RESULTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../results');

/** The file `--out` names, or the benchmark's default. */
export const resultPath = (name: string, out: string | undefined): string => path.resolve(out ?? path.join(RESULTS, `${name}-latest.json`));

/** Writes `figures` with the time and the machine; returns the path, relative to the working directory. */
export function writeResult(file: string, figures: Record<string, unknown>): string {
  mkdirSync(path.dirname(file), { recursive: true });
  const machine = {
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? '?',
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    load_average: os.loadavg(),
  };
  writeFileSync(file, `${JSON.stringify({ generated_at: new Date().toISOString(), machine, ...figures }, null, 2)}\n`);
  return path.relative(process.cwd(), file);
}
