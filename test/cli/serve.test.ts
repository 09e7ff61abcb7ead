/**
 * `tradeseal serve` as an operator starts it on the embedded store: a taken port is a one-line error that
 * says what to do, before a store is made; a server that finds a pipeline run owning the store waits for it and
 * then serves (a server never becomes a client of a command that is about to exit); and stale regime data are
 * reported at start and by the health check.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync } from 'node:fs';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, describeRun, REPO_ROOT, runCli, runCliProcess, tempHome, type CliEnv } from '../helpers/cli.js';
import { builtCli, spawnEnv } from '../helpers/built-cli.js';
import { macroDataThrough } from '../helpers/macro-data.js';

const home = tempHome();
/** The last day of the data the pipeline run reads (a trading day). */
const LAST_DAY = '2016-12-30';
const env: CliEnv = cliEnv(home, undefined, { DATABASE_URL: undefined, LOG_LEVEL: 'silent' });
const children: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

interface Running {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  /** Resolves once the output matches `pattern`. */
  waitFor: (pattern: RegExp) => Promise<RegExpExecArray>;
}

function start(args: string[], extra: CliEnv = {}): Running {
  const child = spawn(process.execPath, [builtCli(), ...args], { cwd: REPO_ROOT, env: spawnEnv({ ...env, ...extra }) });
  children.push(child);
  let out = '';
  const waiters: Array<() => void> = [];
  const feed = (chunk: Buffer): void => {
    out += chunk.toString();
    for (const w of waiters.splice(0)) w();
  };
  child.stdout.on('data', feed);
  child.stderr.on('data', feed);
  const waitFor = (pattern: RegExp): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const m = pattern.exec(out);
        if (m) resolve(m);
        else if (child.exitCode !== null) reject(new Error(`exited (${child.exitCode}) before ${pattern}: ${out}`));
        else waiters.push(check);
      };
      child.once('exit', () => waiters.push(check) && feed(Buffer.alloc(0)));
      check();
    });
  return { child, output: () => out, waitFor };
}

const exited = (child: ChildProcessWithoutNullStreams): Promise<number | null> =>
  child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));

describe('tradeseal serve', () => {
  it('a taken port ends with `port_in_use` and a hint to choose another, without a stack trace, before a store is made', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const r = await runCliProcess(['serve', '--port', String(port)], env);
      expect(r.code, describeRun(r)).toBe(4);
      expect(r.stderr).toContain(`port_in_use: port ${port} on 127.0.0.1 is already in use by another process`);
      expect(r.stderr).toMatch(/--port N/);
      expect(r.stderr).not.toMatch(/sweeper|\n\s+at /);
      // Said before the store is opened: the home's new embedded store was not made for nothing.
      expect(readdirSync(home)).toEqual([]);
      // What `npm start` runs: the port is checked before the pipeline's long first run, not after it.
      const first = await runCliProcess(['serve', '--pipeline-if-empty', '--port', String(port)], env);
      expect(first.code, describeRun(first)).toBe(4);
      expect(first.stderr).toContain('port_in_use');
      expect(first.stdout).not.toMatch(/running the pipeline/);
      expect(readdirSync(home)).toEqual([]);
    } finally {
      blocker.close();
    }
  }, 60_000);

  it('more than one worker on the embedded store is a usage error that says why, before anything starts', async () => {
    const r = await runCliProcess(['serve', '--workers', '2', '--port', '0'], env);
    expect(r.code, describeRun(r)).toBe(2);
    expect(r.stderr).toContain('--workers 2 needs DATABASE_URL: the embedded store (PGlite, no DATABASE_URL) is served by one process');
    expect(r.stdout).not.toMatch(/tradeseal serving/);
  }, 60_000);

  it('waits for a pipeline run that owns the embedded store, then serves it, and reports stale regime data', async () => {
    // A run over ten years of the bundled history (some 120 refits, ten seconds of fitting): long enough for
    // the server to find it running.
    const dataDir = await macroDataThrough(LAST_DAY);
    const pipeline = start(['pipeline', 'run'], { PIPELINE_DATA_DIR: dataDir });
    await pipeline.waitFor(/refit \d+ of \d+/);
    const server = start(['serve', '--port', '0']);
    await server.waitFor(/waiting for process \d+ \(pipeline run\) to release the embedded store/);
    expect(await exited(pipeline.child)).toBe(0);
    const [, url] = await server.waitFor(/tradeseal serving \/engine and \/v1 on (http:\/\/\S+) \(store: embedded\)/);
    await server.waitFor(new RegExp(`warning: the regime in force is stale: its data \\(${LAST_DAY}\\) are [\\d.]+ days old`));

    const health = await fetch(`${url}/engine/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({
      status: 'degraded',
      db_ok: true,
      regime: { date: LAST_DAY, source: 'pipeline', stale: true },
      warnings: [expect.stringContaining('tradeseal pipeline nightly')],
    });
    // The server owns the store now: a command is its client.
    const status = await runCli(['pipeline', 'status', '--json'], env);
    expect(status.json().runs[0]).toMatchObject({ status: 'published', last_day: LAST_DAY });

    server.child.kill('SIGTERM');
    expect(await exited(server.child)).toBe(0);
  }, 420_000);
});
