/**
 * The documented-output checker (`npm run docs:check`, `npm run docs:update`; docs/testing.md, "Documented
 * outputs"): runs every `console` block of the given documents in a workspace per document (a document that
 * continues another runs after it, in its workspace: `chainsOf`), compares each
 * command's output with the documented one after masking (or, updating, writes the real output in), checks the
 * timing markers are filled and the benchmark blocks' inputs digests are current. Returns the failures, each
 * naming `file:line`; the caller prints them and sets the exit status.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BENCHMARKS, inputsDigest, runBenchmark } from './benchmarks.js';
import { unifiedDiff } from './diff.js';
import { comparable } from './mask.js';
import { parseDocument, type ParsedDocument } from './parse.js';
import { rewriteBenchmark, rewriteOutputs, rewriteTimings } from './rewrite.js';
import { runDocument, type CommandRun } from './run-document.js';
import { formatSeconds, measureNpmTest, measureTimings, TIMINGS } from './timings.js';
import { buildCli, makePublishedTemplate, makeToolbox, makeWorkspace, removeToolbox, type CliKind, type Workspace } from './workspace.js';

export interface CheckOptions {
  /** The package whose CLI and benchmarks are used. */
  packageRoot: string;
  /** The documents, as paths relative to `packageRoot` or absolute (failures name them as given). */
  documents: readonly string[];
  /** Rewrite the documents instead of failing on differences. */
  update: boolean;
  /**
   * With `update`: rerun the benchmark blocks whose inputs changed (`stale`: their deterministic figures may have
   * moved) or every one (`all`), and record their digests. A block whose inputs are unchanged is left as it is.
   */
  benchmarks?: boolean | 'stale' | 'all';
  /** With `update`: measure the timing markers (`npm-test` only with `npmTest`). */
  timings?: boolean;
  npmTest?: boolean;
  /** Require every timing marker and every benchmark block to be present in the documents (the real docs do). */
  requireMarkers?: boolean;
  cli?: CliKind;
  /** A home in which the history is already published (`makePublishedTemplate`), instead of making one. */
  templateHome?: string;
  commandDeadlineMs?: number;
  /** Documents run at the same time (each in its own workspace). */
  concurrency?: number;
  log?: (line: string) => void;
}

export interface CheckResult {
  failures: string[];
  /** Documents rewritten by an update. */
  updated: string[];
  commands: number;
}

/** Per command: a first `tradeseal demo` runs the whole pipeline, on two cores shared with the rest of the suite. */
const DEFAULT_DEADLINE_MS = 300_000;

/** The checked documents of a package: its README and every page of docs/, as paths relative to it. */
export function documentedPages(packageRoot: string): string[] {
  const pages = readdirSync(path.join(packageRoot, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
  return ['README.md', ...pages];
}

function compare(file: string, run: CommandRun, expected: readonly string[]): string | null {
  if (run.error) return `${file}:${run.line}: \`${run.command}\` ${run.error}`;
  const diff = unifiedDiff(comparable(expected), comparable(run.actual), { expected: `${file}:${run.line} (documented)`, actual: `${file}:${run.line} (printed)` });
  if (!diff) return null;
  const status = run.exitCode === 0 ? '' : ` (exit status ${run.exitCode})`;
  return `${file}:${run.line}: the output of \`${run.command}\` differs${status}:\n${diff}`;
}

async function pool<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

export async function checkDocuments(opts: CheckOptions): Promise<CheckResult> {
  const log = opts.log ?? (() => {});
  const deadline = opts.commandDeadlineMs ?? DEFAULT_DEADLINE_MS;
  const result: CheckResult = { failures: [], updated: [], commands: 0 };
  const docs = opts.documents.map((file) => {
    const text = readFileSync(path.resolve(opts.packageRoot, file), 'utf8');
    return { file, text, parsed: parseDocument(text) };
  });
  for (const d of docs) for (const p of d.parsed.problems) result.failures.push(`${d.file}:${p.line}: ${p.message}`);

  const measured: Record<string, string> = {};
  const withBlocks = docs.filter((d) => d.parsed.blocks.length > 0);
  const cli = opts.cli ?? 'dist';
  const box = makeToolbox(opts.packageRoot, cli);
  try {
    if (opts.update && opts.timings) Object.assign(measured, await measureTimings({ packageRoot: opts.packageRoot, scratch: box.root, env: box.baseEnv, log }));
    // The build (when stale) only for documents that run the CLI: a `tradeseal` command, a store, a server.
    const needsCli = withBlocks.some((d) => d.parsed.published || d.parsed.blocks.some((b) => b.serve || b.commands.some((c) => /\btradeseal\b/.test(c.text))));
    if (needsCli && cli === 'dist') buildCli(opts.packageRoot);
    let template: string | null = opts.templateHome ?? null;
    if (!template && (withBlocks.some((d) => d.parsed.published) || (opts.update && opts.timings))) {
      log('the published template: tradeseal pipeline run on an empty store …');
      const t = await makePublishedTemplate(box, 600_000);
      template = t.home;
      measured['pipeline-run'] = formatSeconds(t.seconds);
    }

    await pool(chainsOf(withBlocks, result.failures, opts.packageRoot), opts.concurrency ?? 2, async (chain) => {
      let ws: Workspace | null = null;
      for (const d of chain) {
        log(`${d.file}: ${d.parsed.blocks.reduce((n, b) => n + b.commands.length, 0)} commands${ws ? ` where ${d.parsed.continues?.file} left off` : ''} …`);
        ws = ws ?? makeWorkspace(box, d.file, d.parsed.published ? template : null);
        const { runs, env } = await runDocument(d.parsed, ws, box, { commandDeadlineMs: deadline, serverDeadlineMs: deadline });
        ws = { ...ws, env };
        result.commands += runs.length;
        const expected = new Map(d.parsed.blocks.flatMap((b) => b.commands).map((c) => [c.line, c.expected] as const));
        const outputs = new Map<number, string[]>();
        for (const run of runs) {
          if (opts.update && !run.error) outputs.set(run.line, run.actual);
          else {
            const failure = compare(d.file, run, expected.get(run.line) ?? []);
            if (failure) result.failures.push(failure);
          }
        }
        if (opts.update) d.text = rewriteOutputs(d.text, d.parsed, outputs);
      }
    });

    if (opts.update) {
      for (const d of docs) d.text = rewriteTimings(d.text, measured);
      if (opts.benchmarks) {
        for (const b of BENCHMARKS) {
          const holders = docs.filter((d) => parseDocument(d.text).outputs.some((o) => o.name === b.name));
          if (holders.length === 0) continue;
          const digest = inputsDigest(opts.packageRoot, b.inputs);
          const recorded = holders.flatMap((d) => parseDocument(d.text).outputs.filter((o) => o.name === b.name).map((o) => o.inputs));
          if (opts.benchmarks !== 'all' && !benchmarkStale(recorded, digest)) {
            log(`npm run ${b.script}: its inputs are unchanged, its block stays`);
            continue;
          }
          log(`npm run ${b.script} …`);
          const body = runBenchmark(opts.packageRoot, b, box.root, { ...process.env, ...box.baseEnv });
          for (const d of holders) d.text = rewriteBenchmark(d.text, parseDocument(d.text), b.name, body, digest);
        }
      }
      const write = (): void => {
        for (const d of docs) {
          const before = readFileSync(path.resolve(opts.packageRoot, d.file), 'utf8');
          if (d.text !== before) {
            writeFileSync(path.resolve(opts.packageRoot, d.file), d.text);
            if (!result.updated.includes(d.file)) result.updated.push(d.file);
          }
        }
      };
      write();
      if (opts.npmTest) {
        const npmTest = await measureNpmTest({ packageRoot: opts.packageRoot, env: box.baseEnv, log });
        for (const d of docs) d.text = rewriteTimings(d.text, { 'npm-test': npmTest });
        write();
      }
    }
  } finally {
    removeToolbox(box);
  }
  result.failures.push(...markerFailures(docs.map((d) => ({ file: d.file, parsed: parseDocument(d.text) })), opts));
  return result;
}

/**
 * The documents in the order they run: a chain starts with a document that continues none and goes on with the
 * documents that continue it (`<!-- docs-check: continues FILE -->`, FILE relative to `root` or absolute), each
 * where the one before left off. A document that continues one not checked, one that runs no command, or itself
 * through others is a failure.
 */
export function chainsOf<T extends { file: string; parsed: ParsedDocument }>(docs: readonly T[], failures: string[], root: string): T[][] {
  const at = (file: string): string => path.resolve(root, file);
  const byFile = new Map(docs.map((d) => [at(d.file), d]));
  const placed = new Set<T>();
  const chains: T[][] = [];
  const extend = (chain: T[]): void => {
    for (const d of docs) {
      if (d.parsed.continues !== null && at(d.parsed.continues.file) === at(chain[chain.length - 1]!.file) && !placed.has(d)) {
        placed.add(d);
        chain.push(d);
        extend(chain);
        return;
      }
    }
  };
  for (const d of docs) {
    if (d.parsed.continues !== null) continue;
    placed.add(d);
    const chain = [d];
    extend(chain);
    chains.push(chain);
  }
  for (const d of docs) {
    if (placed.has(d)) continue;
    const { file: target, line } = d.parsed.continues!;
    const why = !byFile.has(at(target)) ? 'which is not among the checked documents or runs no command' : 'which another document continues already, or which continues it in turn';
    failures.push(`${d.file}:${line}: docs-check: continues ${target}, ${why}`);
  }
  return chains;
}

/** Whether a benchmark's blocks, recording these inputs digests, need a rerun for inputs whose digest is now `digest`. */
export function benchmarkStale(recorded: ReadonlyArray<string | null>, digest: string): boolean {
  return recorded.some((r) => r !== digest);
}

/** The timing markers and benchmark blocks: present (when required), filled, known, and current. */
function markerFailures(docs: ReadonlyArray<{ file: string; parsed: ParsedDocument }>, opts: CheckOptions): string[] {
  const failures: string[] = [];
  const seenTimings = new Set<string>();
  for (const d of docs) {
    for (const t of d.parsed.timings) {
      seenTimings.add(t.name);
      if (!(TIMINGS as readonly string[]).includes(t.name)) failures.push(`${d.file}:${t.line}: unknown timing marker timing:${t.name} (known: ${TIMINGS.join(', ')})`);
      else if (t.value === '') failures.push(`${d.file}:${t.line}: the timing marker timing:${t.name} is empty: npm run docs:update measures it`);
    }
  }
  if (opts.requireMarkers) {
    for (const name of TIMINGS) if (!seenTimings.has(name)) failures.push(`no document has the timing marker <!-- timing:${name} -->…<!-- /timing -->`);
  }
  const seenBenchmarks = new Set<string>();
  for (const d of docs) {
    for (const o of d.parsed.outputs) {
      const b = BENCHMARKS.find((x) => x.name === o.name);
      if (!b) {
        failures.push(`${d.file}:${o.line}: output:${o.name} is not a benchmark block (${BENCHMARKS.map((x) => x.name).join(', ')}); a command's output is shown as a console block`);
        continue;
      }
      seenBenchmarks.add(b.name);
      const digest = inputsDigest(opts.packageRoot, b.inputs);
      if (o.inputs === null) failures.push(`${d.file}:${o.line}: the benchmark block ${b.name} records no inputs digest: run npm run docs:update -- --benchmarks`);
      else if (o.inputs !== digest) failures.push(`${d.file}:${o.line}: the benchmark block ${b.name} is stale (its inputs changed: ${b.inputs.join(', ')}): run npm run docs:update -- --benchmarks`);
    }
  }
  if (opts.requireMarkers) {
    for (const b of BENCHMARKS) if (!seenBenchmarks.has(b.name)) failures.push(`no document has the benchmark block <!-- output:${b.name}:start --> … <!-- output:${b.name}:end -->`);
  }
  return failures;
}
