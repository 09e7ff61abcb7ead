/**
 * The pipeline and regime commands as an operator meets them on the embedded store (no DATABASE_URL, the
 * default of a fresh machine): the store keeps answering other commands while a run fits its models; a run
 * killed half-way never blocks the next one; a what-if writes nothing; a backfill that removes published days
 * needs --force and --yes; an --as-of before the data allow names the first possible day; an operator's
 * override holds until released.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, describeRun, REPO_ROOT, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { builtCli, spawnEnv } from '../helpers/built-cli.js';

const home = tempHome();
const env: CliEnv = cliEnv(home, undefined, { DATABASE_URL: undefined });
const children: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

/** Starts the CLI in the background and resolves once its output matches `ready`. */
function startCli(args: string[], ready: RegExp): Promise<{ child: ChildProcessWithoutNullStreams; output: () => string }> {
  const child = spawn(process.execPath, [builtCli(), ...args], { cwd: REPO_ROOT, env: spawnEnv(env) });
  children.push(child);
  let out = '';
  return new Promise((resolve, reject) => {
    const check = (chunk: Buffer): void => {
      out += chunk.toString();
      if (ready.test(out)) resolve({ child, output: () => out });
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.once('exit', (code) => reject(new Error(`tradeseal ${args.join(' ')} exited (${code}) before ${ready}: ${out}`)));
  });
}

const exited = (child: ChildProcessWithoutNullStreams): Promise<number | null> =>
  child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));

describe('while a pipeline run owns the embedded store', () => {
  it('other commands get answers while it fits its models, and killing it half-way blocks no later run', async () => {
    // A full run over the bundled history: some 230 monthly refits.
    const { child } = await startCli(['pipeline', 'run'], /refit \d+ of \d+/);
    // The model stage is running (in its worker thread): the store still serves another process.
    const status = await runCli(['pipeline', 'status', '--json'], env);
    expect(status.code, describeRun(status)).toBe(0);
    expect(child.exitCode).toBeNull();
    expect(status.json().runs[0]).toMatchObject({ status: 'running', as_of: null });

    child.kill('SIGKILL');
    await exited(child);
    const next = await runCli(['pipeline', 'run', '--as-of', '2008-06-30', '--publish', '--json'], env);
    expect(next.code, describeRun(next)).toBe(0);
    expect(next.json()).toMatchObject({ published: true, last_day: '2008-06-30' });
    const runs = (await runCli(['pipeline', 'status', '--json'], env)).json().runs;
    expect(runs[1]).toMatchObject({ status: 'failed', as_of: null, error: expect.stringMatching(/^abandoned/) });
  }, 420_000);
});

describe('what a run may do to the published history', () => {
  it('a what-if (--as-of without --publish) reports and writes nothing', async () => {
    const whatIf = await runCli(['pipeline', 'run', '--as-of', '2008-01-15'], env);
    expect(whatIf.code, describeRun(whatIf)).toBe(0);
    expect(whatIf.stdout).toMatch(/what-if as of 2008-01-15 \(full\): computed \d+ trading days \(2006-12-20 to 2008-01-15\); nothing was published/);
    const june = await runCli(['signals', 'history', '--start', '2008-06-02', '--json'], env);
    expect(june.json().at(-1)).toMatchObject({ date: '2008-06-30' });
  }, 300_000);

  it('a backfill that removes published days is refused without --force, and without --yes where nobody can confirm', async () => {
    const plain = await runCli(['pipeline', 'run', '--as-of', '2008-01-15', '--publish', '--json'], env);
    expect(plain.code, describeRun(plain)).toBe(4);
    expect(plain.json().error).toMatchObject({ code: 'published_days_would_be_removed', exit: 4 });
    const unconfirmed = await runCli(['pipeline', 'run', '--as-of', '2008-01-15', '--publish', '--force', '--json'], env);
    expect(unconfirmed.code, describeRun(unconfirmed)).toBe(2);
    expect(unconfirmed.json().error).toMatchObject({
      code: 'confirmation_required',
      detail: expect.stringMatching(/REMOVES \d+ published days \(2008-01-16 to 2008-06-30\)/),
      hint: 'pass --yes to confirm',
    });
    const june = await runCli(['signals', 'history', '--start', '2008-06-02', '--json'], env);
    expect(june.json().at(-1)).toMatchObject({ date: '2008-06-30' });

    const confirmed = await runCli(['pipeline', 'run', '--as-of', '2008-01-15', '--publish', '--force', '--yes', '--json'], env);
    expect(confirmed.code, describeRun(confirmed)).toBe(0);
    expect(confirmed.json().plan).toMatchObject({ removed_first: '2008-01-16', removed_last: '2008-06-30', changed: 0 });
    expect((await runCli(['signals', 'history', '--start', '2008-01-16', '--json'], env)).json()).toEqual([]);
    const [latest] = (await runCli(['pipeline', 'status', '--json'], env)).json().runs;
    expect(latest.confirmed_by).toMatch(/^cli:/);
  }, 420_000);

  it('an --as-of before the data allow a run names the first day a run can publish', async () => {
    const early = await runCli(['pipeline', 'run', '--as-of', '2006-06-01', '--json'], env);
    expect(early.code, describeRun(early)).toBe(2);
    expect(early.json().error).toMatchObject({
      code: 'not_enough_history',
      detail: expect.stringContaining('the first day a run can publish is 2006-12-20'),
      hint: 'use --as-of 2006-12-20 or later',
    });
  }, 300_000);
});

describe("an operator's override", () => {
  it('holds through a run until released; releasing asks for confirmation; the data age is reported', async () => {
    const manual = await runCli(['regime', 'publish', '--regime', 'risk_off', '--risk-score', '0.9', '--reason', 'emergency', '--json'], env);
    expect(manual.code, describeRun(manual)).toBe(0);
    const run = await runCli(['pipeline', 'run', '--as-of', '2008-01-15', '--publish'], env);
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toMatch(
      /the operator's override #\d+ stays in force: risk_off \(by cli:[^:]+: "emergency"\); the model says \w+ on 2008-01-15\. Lift it with `tradeseal regime release`\./,
    );
    const shown = await runCli(['regime', 'show', '--json'], env);
    expect(shown.json()).toMatchObject({ source: 'manual', regime: 'risk_off', freshness: { stale: false } });

    const unconfirmed = await runCli(['regime', 'release', '--json'], env);
    expect(unconfirmed.code, describeRun(unconfirmed)).toBe(2);
    expect(unconfirmed.json().error.code).toBe('confirmation_required');
    const released = await runCli(['regime', 'release', '--yes', '--reason', 'all clear', '--json'], env);
    expect(released.code, describeRun(released)).toBe(0);
    expect(released.json().broadcast).toMatchObject({ source: 'pipeline', date: '2008-01-15' });
    const again = await runCli(['regime', 'release', '--yes'], env);
    expect(again.code, describeRun(again)).toBe(4);
    expect(again.stderr).toMatch(/regime_override_not_in_force/);

    // The model's regime of 2008-01-15 is years old: show says it is stale and what to do.
    const stale = await runCli(['regime', 'show'], env);
    expect(stale.stdout).toMatch(
      /the regime in force is stale: its data \(2008-01-15\) are [\d.]+ days old, the policy allows 7\.0 days; authorize refuses every order \(regime_stale\) until you publish a real day \(`tradeseal pipeline nightly`/,
    );
  }, 420_000);
});
