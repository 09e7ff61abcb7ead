/**
 * An ordinary mistake is never reported as an internal bug: a list of the mistakes an operator makes, run
 * through every command family, each ending with a code of the error table other than `internal`, its exit
 * code, a message naming the thing at fault, and a hint. Among them: a DATABASE_URL naming a database that
 * does not exist on the test server, `signals export --out` into a missing directory, and `quant arima` on
 * values near 1e300. `serve`, which has no --json, is run as a process and read from its stderr.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../../src/core/errors.js';
import { cliEnv, describeRun, runCli, runCliProcess, tempHome, type CliEnv } from '../helpers/cli.js';
import { testDbInfo } from '../helpers/db.js';
import { databaseUrl } from '../setup/database-url.js';

const home = tempHome();
const scratch = tempHome();
// The embedded store under `home`, whatever DATABASE_URL the run itself has (CI exports one): the mistakes
// about TRADESEAL_HOME are mistakes of the embedded store, and no case touches the run's own database.
const env = cliEnv(home, undefined, { DATABASE_URL: undefined });
const info = testDbInfo();

const TOKEN = `tse_${'A'.repeat(43)}`;
const GHOST = '5b0e4f8e-4c55-4a57-9a39-2a8f0f4c1d11';
const MISSING_DIR = path.join(scratch, 'no-such-dir');

/** A file in the scratch directory. */
function file(name: string, text: string): string {
  const p = path.join(scratch, name);
  fs.writeFileSync(p, text);
  return p;
}

/** A column of `n` values near 1e300 (a random walk around it: not constant). */
const huge = (n: number): string =>
  ['date,value', ...Array.from({ length: n }, (_, i) => `2024-01-${String((i % 28) + 1).padStart(2, '0')},${(1 + (i % 7) / 10).toFixed(1)}e300`)].join('\n');

let notTradeseal: http.Server;
let notTradesealUrl = '';
let closedUrl = '';

beforeAll(async () => {
  // Another web server, not tradeseal: HTML for every path (200 at /, 404 elsewhere).
  notTradeseal = http.createServer((req, res) => {
    res.writeHead(req.url === '/' ? 200 : 404, { 'content-type': 'text/html' }).end('<html><body>It works!</body></html>');
  });
  await new Promise<void>((resolve) => notTradeseal.listen(0, '127.0.0.1', resolve));
  notTradesealUrl = `http://127.0.0.1:${(notTradeseal.address() as AddressInfo).port}`;
  // A port nothing listens on: one that was just bound and released.
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
afterAll(async () => {
  await new Promise<void>((resolve) => notTradeseal?.close(() => resolve()) ?? resolve());
});

interface Mistake {
  family: string;
  mistake: string;
  /** The command line, without --json (added). */
  args: () => string[];
  env?: () => CliEnv;
  code: ErrorCode;
  /** What the message must name: the flag, setting, path or value at fault. */
  names: () => string[];
  /** What the hint must say, beyond being there. */
  hint?: string;
}

/** A DATABASE_URL on the test server (PostgreSQL runs only): the server's address with another database or user. */
const onTestServer = (change: (url: URL) => void): string => {
  if (info.mode !== 'postgres') throw new Error('PostgreSQL only');
  const url = new URL(databaseUrl(info.adminUrl, 'tradeseal_no_such_database'));
  change(url);
  return url.toString();
};

const postgresOnly: Mistake[] =
  info.mode !== 'postgres'
    ? []
    : [
        {
          family: 'signals',
          mistake: 'DATABASE_URL names a database that does not exist',
          args: () => ['signals', 'latest'],
          env: () =>
            cliEnv(
              home,
              onTestServer(() => {}),
            ),
          code: 'config_invalid',
          names: () => ['DATABASE_URL', 'tradeseal_no_such_database', 'does not exist'],
          hint: 'createdb',
        },
        {
          family: 'db',
          mistake: 'DATABASE_URL names a database that does not exist',
          args: () => ['db', 'status'],
          env: () =>
            cliEnv(
              home,
              onTestServer(() => {}),
            ),
          code: 'config_invalid',
          names: () => ['DATABASE_URL', 'tradeseal_no_such_database'],
        },
        {
          family: 'engine',
          mistake: 'DATABASE_URL names a role that does not exist',
          args: () => ['engine', 'agents', 'list'],
          env: () =>
            cliEnv(
              home,
              onTestServer((u) => {
                u.username = 'no_such_role';
                u.password = '';
              }),
            ),
          code: 'config_invalid',
          names: () => ['DATABASE_URL', 'no_such_role'],
        },
      ];

const MISTAKES: Mistake[] = [
  ...postgresOnly,
  {
    family: 'pipeline',
    mistake: 'DATABASE_URL names a port nothing listens on',
    args: () => ['pipeline', 'status'],
    env: () => cliEnv(home, 'postgres://tradeseal@127.0.0.1:1/tradeseal'),
    code: 'service_unavailable',
    names: () => ['127.0.0.1:1', 'ECONNREFUSED'],
  },
  {
    family: 'regime',
    mistake: 'TRADESEAL_HOME is a file',
    args: () => ['regime', 'show'],
    env: () => ({ ...env, TRADESEAL_HOME: file('home-is-a-file', '') }),
    code: 'config_invalid',
    names: () => ['TRADESEAL_HOME', 'home-is-a-file'],
  },
  {
    family: 'signals',
    mistake: 'export --out into a directory that does not exist',
    args: () => ['signals', 'export', '--out', path.join(MISSING_DIR, 'x.csv')],
    code: 'validation_failed',
    names: () => ['--out', path.join(MISSING_DIR, 'x.csv'), 'does not exist'],
  },
  {
    family: 'signals',
    mistake: 'export --out naming a directory',
    args: () => ['signals', 'export', '--out', scratch],
    code: 'validation_failed',
    names: () => ['--out', scratch, 'is a directory'],
  },
  {
    family: 'signals',
    mistake: '--url that is not a URL',
    args: () => ['signals', 'latest', '--url', 'signals.example'],
    code: 'validation_failed',
    names: () => ['--url', 'signals.example'],
  },
  {
    family: 'signals',
    mistake: '--url that refuses connections',
    args: () => ['signals', 'latest', '--url', closedUrl],
    code: 'service_unavailable',
    names: () => [closedUrl, 'ECONNREFUSED'],
  },
  {
    family: 'signals',
    mistake: '--url of a web server that is not tradeseal',
    args: () => ['signals', 'latest', '--url', notTradesealUrl],
    code: 'validation_failed',
    names: () => ['--url', notTradesealUrl, 'not a tradeseal service'],
  },
  {
    family: 'engine',
    mistake: '--url of a web server that is not tradeseal',
    args: () => ['engine', 'log', 'head', '--url', notTradesealUrl, '--token', TOKEN],
    code: 'validation_failed',
    names: () => ['--url', notTradesealUrl, 'not a tradeseal service'],
  },
  {
    family: 'engine',
    mistake: 'an agent id that names no agent',
    args: () => ['engine', 'agents', 'status', GHOST, '--status', 'Suspended'],
    code: 'not_found',
    names: () => [GHOST],
    hint: 'tradeseal engine agents list',
  },
  {
    family: 'engine',
    mistake: 'policy check of a file that does not exist',
    args: () => ['engine', 'policy', 'check', path.join(MISSING_DIR, 'policy.json')],
    code: 'policy_invalid',
    names: () => [path.join(MISSING_DIR, 'policy.json')],
  },
  {
    family: 'engine',
    mistake: 'policy check of a file that is not JSON',
    args: () => ['engine', 'policy', 'check', file('policy.json', '{"id": "p", ')],
    code: 'policy_invalid',
    names: () => ['policy.json', 'not JSON'],
  },
  {
    family: 'engine',
    mistake: 'reconcile of a drop copy that does not exist',
    args: () => ['engine', 'reconcile', path.join(MISSING_DIR, 'drop.csv')],
    code: 'drop_copy_invalid',
    names: () => ['FILE', path.join(MISSING_DIR, 'drop.csv'), 'does not exist'],
  },
  {
    family: 'engine',
    mistake: 'reconcile of a directory',
    args: () => ['engine', 'reconcile', scratch],
    code: 'drop_copy_invalid',
    names: () => ['FILE', scratch, 'is a directory'],
  },
  {
    family: 'quant',
    mistake: 'arima on values near 1e300 (their squares overflow a double)',
    args: () => ['quant', 'arima', file('huge.csv', huge(40))],
    code: 'data_invalid',
    names: () => ['huge.csv', 'value', 'overflow'],
  },
  {
    family: 'quant',
    mistake: 'metrics of returns near 1e300 (their squares overflow a double)',
    args: () => ['quant', 'metrics', file('huge-returns.csv', huge(40)), '--returns', 'value'],
    code: 'data_invalid',
    names: () => ['huge-returns.csv', 'value', 'overflow'],
  },
  {
    family: 'quant',
    mistake: 'arima on an empty CSV file',
    args: () => ['quant', 'arima', file('empty.csv', '')],
    code: 'data_invalid',
    names: () => ['empty.csv', 'empty'],
  },
  {
    family: 'quant',
    mistake: 'arima on a directory',
    args: () => ['quant', 'arima', scratch],
    code: 'data_invalid',
    names: () => [scratch, 'EISDIR'],
  },
  {
    family: 'quant',
    mistake: 'metrics of a file that does not exist',
    args: () => ['quant', 'metrics', path.join(MISSING_DIR, 'r.csv'), '--returns', 'r'],
    code: 'data_invalid',
    names: () => [path.join(MISSING_DIR, 'r.csv'), 'ENOENT'],
  },
  {
    family: 'pipeline',
    mistake: 'fetch into a --data-dir that does not exist',
    args: () => ['pipeline', 'fetch', '--data-dir', MISSING_DIR],
    env: () => ({ ...env, FRED_API_KEY: 'a'.repeat(32) }),
    code: 'validation_failed',
    names: () => ['--data-dir', MISSING_DIR, 'does not exist'],
  },
  {
    family: 'config',
    mistake: 'a profiles file that is not JSON',
    args: () => ['config', 'show'],
    env: () => ({ ...env, TRADESEAL_PROFILES_FILE: file('profiles.json', 'url = "x"') }),
    code: 'config_invalid',
    names: () => ['profiles.json', 'not JSON'],
  },
  {
    family: 'config',
    mistake: 'a profiles file under a file, not a directory',
    args: () => ['config', 'set', '--profile', 'prod', '--url', 'https://engine.example'],
    env: () => ({ ...env, TRADESEAL_PROFILES_FILE: path.join(file('not-a-dir', ''), 'profiles.json') }),
    code: 'config_invalid',
    names: () => ['TRADESEAL_PROFILES_FILE', 'not-a-dir'],
  },
  {
    family: 'demo',
    mistake: '--home that is a file',
    args: () => ['demo', '--home', file('demo-home', ''), '--no-view'],
    code: 'validation_failed',
    names: () => ['--home', 'demo-home'],
  },
];

interface Failure {
  error: { code: string; detail: string; exit: number; hint?: string; errors?: Array<{ field: string; message: string }> };
}

describe('an ordinary mistake is never reported as an internal bug', () => {
  it.each(MISTAKES.map((m) => [m.family, m.mistake, m] as const))(
    '%s: %s',
    async (_family, _mistake, m) => {
      const r = await runCli([...m.args(), '--json'], m.env?.() ?? env);
      const { error } = r.json<Failure>();
      expect(error, describeRun(r)).toBeDefined();
      expect(error.code, describeRun(r)).toBe(m.code);
      expect(error.code).not.toBe('internal');
      expect(r.code, describeRun(r)).toBe(ERROR_CODES[m.code].exit);
      expect(error.exit).toBe(ERROR_CODES[m.code].exit);
      const said = `${error.detail}\n${(error.errors ?? []).map((e) => `${e.field}: ${e.message}`).join('\n')}`;
      for (const name of m.names()) expect(said, describeRun(r)).toContain(name);
      expect(error.hint, describeRun(r)).toMatch(/\w/);
      if (m.hint) expect(error.hint).toContain(m.hint);
    },
    60_000,
  );

  it.each([
    [
      'a TLS_CERT that is not PEM',
      () => ['serve', '--port', '0'],
      () => ({ ...env, TLS_CERT: file('cert.pem', 'not a certificate'), TLS_KEY: file('key.pem', 'not a key') }),
      'config_invalid',
      ['TLS_CERT', 'cert.pem'],
    ],
    [
      'a --host that is not an address of this machine',
      () => ['serve', '--port', '0', '--host', '203.0.113.7'],
      () => env,
      'validation_failed',
      ['203.0.113.7'],
    ],
  ] as const)(
    'serve: %s',
    async (_mistake, args, runEnv, code, names) => {
      const r = await runCliProcess(args(), runEnv());
      expect(r.code, describeRun(r)).toBe(ERROR_CODES[code].exit);
      expect(r.stderr, describeRun(r)).toContain(`${code}: `);
      for (const name of names) expect(r.stderr).toContain(name);
      expect(r.stderr).not.toContain('internal');
      // oclif prints the hint as a suggestion below the message.
      expect(r.stderr).toMatch(/Try this:|hint/i);
    },
    60_000,
  );
});
