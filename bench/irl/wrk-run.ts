/**
 * Running wrk for the benchmarks that load the engine with it (bench/irl-wrk.ts, bench/hot-agent.ts): its version,
 * a run with the script's environment (stdout echoed or kept, the script's stderr kept for the tally), and the
 * setup calls made before a load. A run that is not measuring what it says throws `BenchFailure`.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export class BenchFailure extends Error {}

export async function call(
  url: string,
  token: string,
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url + route, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  try {
    return { status: res.status, json: JSON.parse(text) as Record<string, unknown> };
  } catch {
    return { status: res.status, json: { text } };
  }
}

export async function expectOk(p: ReturnType<typeof call>, what: string): Promise<Record<string, unknown>> {
  const res = await p;
  if (res.status < 200 || res.status > 299) throw new BenchFailure(`${what}: expected a 2xx, got ${res.status} ${JSON.stringify(res.json)}`);
  return res.json;
}

/** wrk's version line, or null when it is not installed. */
export async function wrkVersion(): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn('wrk', ['-v'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', () => resolve(null));
    child.on('close', () => resolve(/wrk \S+/.exec(out)?.[0] ?? out.split('\n')[0] ?? '?'));
  });
}

/** Runs wrk from the repository's root; its stdout is echoed as it comes unless `quiet` (then kept only). */
export async function runWrk(args: string[], env: Record<string, string>, quiet = false): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    const stderr: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (!quiet) process.stdout.write(d);
    });
    child.stderr.on('data', (d: Buffer) => stderr.push(d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ stdout, stderr: Buffer.concat(stderr).toString(), code }));
  });
}
