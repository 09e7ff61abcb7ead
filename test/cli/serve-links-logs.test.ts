/**
 * What a newcomer sees of `tradeseal serve` on a port of their choosing: the account's links name the address
 * the server is reached at (not the default port), and its log is JSON lines when it does not go to a terminal
 * (what log collectors read), readable lines with LOG_FORMAT=pretty, without a key in either. One embedded
 * store, served twice in turn.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, describeRun, REPO_ROOT, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { builtCli, spawnEnv } from '../helpers/built-cli.js';

const home = tempHome();
const env: CliEnv = cliEnv(home, undefined, { DATABASE_URL: undefined, PUBLIC_BASE_URL: undefined, LOG_FORMAT: undefined, LOG_LEVEL: 'debug' });

interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  stdout: () => string;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** A port no one listens on, and not the default 8080. */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** `tradeseal serve --port PORT` with its standard output and error read through pipes (not a terminal). */
async function serve(port: number, extra: CliEnv = {}): Promise<Served> {
  const child = spawn(process.execPath, [builtCli(), 'serve', '--port', String(port)], {
    cwd: REPO_ROOT,
    env: spawnEnv({ ...env, ...extra }),
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (c: Buffer) => void (err += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /tradeseal serving \S+ and \S+ on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${out}${err}`)));
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return { child, url, stdout: () => out, stderr: () => err, stop };
}

let apiKey = '';
let port = 0;
let json: Served;
let account: { billing_portal_url: string; docs_url: string };

beforeAll(async () => {
  const issued = await runCli(['signals', 'keys', 'issue', '--email', 'quant@example.com', '--tier', 'starter', '--json'], env);
  expect(issued.code, describeRun(issued)).toBe(0);
  apiKey = (issued.json() as { api_key: string }).api_key;
  port = await freePort();
  json = await serve(port);
  const res = await fetch(`${json.url}/v1/account`, { headers: { 'x-signals-key': apiKey } });
  expect(res.status).toBe(200);
  account = (await res.json()) as typeof account;
  await json.stop();
}, 120_000);

afterAll(async () => {
  await json?.stop();
});

describe('tradeseal serve --port N', () => {
  it("names the port it serves on in the account's links, without PUBLIC_BASE_URL", () => {
    expect(port).not.toBe(8080);
    expect(account.billing_portal_url).toBe(`http://localhost:${port}/v1/billing/payments/portal`);
    expect(account.docs_url).toBe(`http://localhost:${port}/docs`);
  });

  it('writes its log as JSON lines when standard error is not a terminal, with no key in them', () => {
    const lines = json
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    const records = lines.map((l) => JSON.parse(l) as { msg?: string; req?: { url?: string } });
    expect(records.some((r) => r.msg?.startsWith(`Server listening at http://127.0.0.1:${port}`))).toBe(true);
    expect(records.some((r) => r.req?.url === '/v1/account')).toBe(true);
    expect(json.stdout()).not.toContain('{');
    expect(json.stderr()).not.toContain(apiKey);
  });

  it('writes readable lines with LOG_FORMAT=pretty: time, level, message and fields, with no key in them', async () => {
    const pretty = await serve(port, { LOG_FORMAT: 'pretty' });
    try {
      const res = await fetch(`${pretty.url}/v1/account`, { headers: { 'x-signals-key': apiKey } });
      expect(res.status).toBe(200);
    } finally {
      await pretty.stop();
    }
    const log = pretty.stderr();
    expect(log).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z INFO  Server listening at http://127\\.0\\.0\\.1:${port}$`, 'm'));
    expect(log).toMatch(/^\S+ INFO  incoming request GET \/v1\/account .*reqId=\S+/m);
    expect(log).not.toMatch(/^\{/m);
    expect(log).not.toContain(apiKey);
  }, 60_000);
});
