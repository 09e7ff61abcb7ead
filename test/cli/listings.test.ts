/**
 * The listings of the CLI on real stores (an engine's, with rows long enough to overflow, and a published
 * history):
 * - every command that prints a table fits an 80-column terminal (`COLUMNS=80`): no line of its output is
 *   wider than 80 (string-width), the columns a reader scans by (a short id, the time, the amount, the
 *   status) survive, and what gave way (hashes, free text) is named in the line under the table; `--wide`
 *   and a pipe print every column whole;
 * - every CSV they write (`--csv`, `signals export`, `GET /v1/export/csv`) keeps numbers numbers: no cell
 *   is a number with a unit glued on, and a column with a number in it has nothing but numbers.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { buildApp } from '../../src/http/app.js';
import { issueKey } from '../../src/signals/store/keys.js';
import { cliEnv, describeRun, REPO_ROOT, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { insertFill, insertReject, insertSession, sampleRejects } from '../helpers/dropcopy-rows.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';

const HOUR = 3_600_000;
const home = tempHome();
let h: EngineHarness;
let published: TestStore;
let engineEnv: CliEnv;
let signalsEnv: CliEnv;
let agentId = '';
const traces: string[] = [];
let drop = '';

/** Lines of `text` wider than `width`, with their widths, for the assertion's message. */
const overflowing = (text: string, width = 80): string[] =>
  text
    .split('\n')
    .filter((l) => stringWidth(l) > width)
    .map((l) => `${stringWidth(l)}: ${l}`);

beforeAll(async () => {
  h = await engineHarness({ policy: { agent_valid_time_max_lag_ms: 3 * HOUR } });
  engineEnv = cliEnv(home, h.store.url, {
    COLUMNS: '80',
    XDG_CONFIG_HOME: path.join(home, 'xdg'),
    TRADESEAL_PROFILES_FILE: undefined,
    TRADESEAL_PROFILE: undefined,
  });
  await h.publishRegime('expansion');
  // An agent with a long name, several long model ids and every regime named: cells wider than a terminal.
  const models = ['momentum-intraday-equities-7', 'mean-reversion-overnight-2', 'carry-fx-g10-basket-1'].map((id, i) => ({
    model_id: id,
    model_hash_hex: String(i + 1).repeat(64),
  }));
  const agent = await h.registerAgent({
    name: 'momentum-intraday-equities-desk-london-7',
    models,
    max_notional: 5_000_000,
    allowed_regimes: ['expansion', 'recovery', 'tightening'],
  });
  agentId = agent.agent_id;
  const other = await h.registerAgent({ name: 'carry-fx-g10-basket-desk-new-york-2' });
  const order = (overrides: Record<string, unknown> = {}) =>
    h.order(agentId, {
      model_id: models[0]!.model_id,
      model_hash_hex: models[0]!.model_hash_hex,
      quantity: 5000,
      limit_price: 197.5309,
      notional: 987_654.5,
      ...overrides,
    });
  const authorize = async (overrides: Record<string, unknown> = {}): Promise<string> => {
    const res = await h.call('POST', '/engine/authorize', order(overrides), agent.token);
    if (res.statusCode !== 200) throw new Error(`authorize: ${res.body}`);
    return res.json().trace_id as string;
  };
  const realNow = h.clock.now;
  h.clock.now = realNow - 2 * HOUR;
  traces.push(await authorize());
  h.clock.now = realNow;
  for (let i = 0; i < 3; i++) {
    const id = await authorize();
    traces.push(id);
    const res = await h.call(
      'POST',
      '/engine/bind-execution',
      {
        trace_id: id,
        exchange_tx_id: `XNAS-2026-11-27-${id}`,
        execution_status: 'Filled',
        asset: 'AAPL',
        executed_quantity: i === 0 ? 5000 : 3000,
        executed_side: i === 2 ? 'Short' : 'Long',
      },
      agent.token,
    );
    if (res.statusCode !== 200) throw new Error(`bind: ${res.body}`);
  }
  for (const [args, what] of [
    [
      [
        'engine',
        'tokens',
        'issue',
        '--client-name',
        'order-router-primary-london-equities-desk',
        '--agent-id',
        agentId,
        '--agent-id',
        other.agent_id,
        '--ttl-days',
        '30',
      ],
      'token',
    ],
    [['signals', 'keys', 'issue', '--email', 'quantitative.research.desk@long-example-asset-management.test', '--tier', 'starter'], 'key'],
    [
      [
        'config',
        'set',
        '--profile',
        'production-london-primary',
        '--url',
        'https://engine.production.london.example-asset-management.test:8443',
        '--token',
        `tse_${'A'.repeat(43)}`,
        '--signals-url',
        'https://signals.production.example-asset-management.test',
        '--key',
        `rsk_${'b'.repeat(43)}`,
      ],
      'profile',
    ],
  ] as const) {
    const r = await runCli([...args], engineEnv);
    if (r.code !== 0) throw new Error(`${what}: ${describeRun(r)}`);
  }
  drop = path.join(home, 'drop-2026-11-27.csv');
  fs.writeFileSync(
    drop,
    [
      'exchange_tx_id,client_order_id,asset,side,quantity,price,agent_id,execution_time',
      `XNAS-2026-11-27-unknown-execution-0001,manual-order-from-the-desk-1,TSLA,Short,7,250.5,${agentId},${new Date(realNow - HOUR).toISOString()}`,
    ].join('\n'),
  );

  // The FIX drop-copy session's state and refused messages, long raw messages and reasons included.
  await insertSession(h.store.sql, {
    owner: 'engine-production-london-primary-7:41213',
    last_inbound_at: new Date(realNow - 4000),
    last_logon_at: new Date(realNow - HOUR),
  });
  await insertFill(h.store.sql, { seq: 31, outcome: 'orphan', appliedAt: new Date(realNow - 5000) });
  for (const r of sampleRejects(new Date(realNow - 60_000))) await insertReject(h.store.sql, r);

  published = await testStore({ history: 'published' });
  signalsEnv = cliEnv(home, published.url, { COLUMNS: '80' });
}, 600_000);
afterAll(async () => {
  await h?.close();
  await published?.close();
});

const QUANT_CSV = path.join(REPO_ROOT, 'test/pipeline/performance/fixtures/empyrical_series.csv');
/** A series with a long column name, for `quant arima`'s header lines. */
const ARIMA_CSV = path.join(home, 'a-series-with-a-long-file-name-for-the-arima-fit.csv');
fs.writeFileSync(
  ARIMA_CSV,
  [
    'date,spread_of_the_long_dated_treasury_basis',
    ...Array.from({ length: 40 }, (_, i) => `${new Date(Date.UTC(2020, 0, 1 + i)).toISOString().slice(0, 10)},${(Math.sin(i / 3) + i / 40).toFixed(4)}`),
  ].join('\n'),
);

/** Each command that prints a table, on which store, and what must still be read at 80 columns. */
const CASES: Array<{ args: () => string[]; store: 'engine' | 'published'; keeps: () => RegExp[] }> = [
  {
    args: () => ['engine', 'traces', 'list'],
    store: 'engine',
    keeps: () => [
      /^txn_time +trace_id +agent_id +status .* notional$/m,
      new RegExp(`^\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +${traces[1]!.slice(0, 8)} .*MATCHED .* 987654.5 USD$`, 'm'),
      /^1 column hidden \(reasoning_hash\): --columns or --wide$/m,
    ],
  },
  {
    args: () => ['engine', 'pending', '--age-seconds', '0'],
    store: 'engine',
    keeps: () => [new RegExp(`${traces[0]!.slice(0, 8)} .*PENDING .* 987654.5 USD$`, 'm')],
  },
  { args: () => ['engine', 'orphans'], store: 'engine', keeps: () => [new RegExp(`${traces[3]!.slice(0, 8)} .*MISMATCH .* 987654.5 USD$`, 'm')] },
  { args: () => ['engine', 'agents', 'list'], store: 'engine', keeps: () => [new RegExp(`^${agentId.slice(0, 8)} .*Active`, 'm'), /5000000/] },
  {
    args: () => [
      'engine',
      'agents',
      'register',
      '--name',
      'statistical-arbitrage-desk-tokyo-3',
      '--max-notional',
      '250000',
      '--model',
      `statistical-arbitrage-pairs-v12:${'3b'.repeat(32)}`,
    ],
    store: 'engine',
    keeps: () => [/^  statistical-arbitrage-pairs-v12 +3b3b3b3b/m],
  },
  { args: () => ['engine', 'dropcopy', 'status'], store: 'engine', keeps: () => [/^state +logged_on$/m, /^last_inbound_at +\S+ \(\d+ s ago\)$/m] },
  {
    args: () => ['engine', 'dropcopy', 'rejects'],
    store: 'engine',
    keeps: () => [
      /^received_at +seq +msg_type +answer +reason$/m,
      /^\d\d-\d\d \d\d:\d\d:\d\d +17 +8 +reject +Required tag missing: LastPx/m,
      /^3 columns hidden \(reason_code, ref_tag, raw\): --columns or --wide$/m,
    ],
  },
  { args: () => ['engine', 'tokens', 'list'], store: 'engine', keeps: () => [/live/, /order-router/] },
  { args: () => ['engine', 'audit-log'], store: 'engine', keeps: () => [/^at +action +actor/m, /token\.issue|agent\.register/] },
  { args: () => ['engine', 'policy', 'show'], store: 'engine', keeps: () => [/expansion/] },
  { args: () => ['engine', 'reconcile', drop], store: 'engine', keeps: () => [/XNAS-2026-11-27/] },
  { args: () => ['engine', 'traces', 'verify', traces[1]!], store: 'engine', keeps: () => [/valid/] },
  {
    args: () => ['signals', 'keys', 'list'],
    store: 'engine',
    keeps: () => [/^key_id +email +tier +state +created_at/m, /quantitative\.research.* starter +live /],
  },
  { args: () => ['config', 'show'], store: 'engine', keeps: () => [/^production-london-primary/m] },
  { args: () => ['db', 'status'], store: 'engine', keeps: () => [/^version +name +applied_at$/m] },
  { args: () => ['pipeline', 'status'], store: 'published', keeps: () => [/^started_at +status +days/m, /succeeded|published/] },
  {
    args: () => ['signals', 'history', '--start', '2008-09-01', '--end', '2008-12-31'],
    store: 'published',
    keeps: () => [/^date +regime +risk_score/m, /^2008-12-31 /m],
  },
  {
    args: () => ['signals', 'forecast'],
    store: 'published',
    keeps: () => [/^date +regime +risk_score +expansion +recovery +tightening +risk_off$/m, /^1 column hidden \(confidence\): --wide$/m],
  },
  {
    args: () => ['signals', 'range', '--start', '2008-10-01', '--end', '2008-10-31'],
    store: 'published',
    keeps: () => [/^date +regime +expansion +recovery +tightening +risk_off/m, /^2008-10-31 /m],
  },
  { args: () => ['signals', 'latest'], store: 'published', keeps: () => [/^2009-03-31/m] },
  { args: () => ['signals', 'backtest', '--start', '2008-01-02', '--end', '2009-03-31'], store: 'published', keeps: () => [/sharpe/] },
  { args: () => ['signals', 'performance'], store: 'published', keeps: () => [/sharpe/] },
  { args: () => ['signals', 'outbox'], store: 'published', keeps: () => [/outbox/] },
  { args: () => ['regime', 'show'], store: 'published', keeps: () => [/regime/] },
  { args: () => ['quant', 'evaluate', '--from', '2008-01-02', '--to', '2009-03-31'], store: 'published', keeps: () => [/^window +strategy +sharpe/m] },
  { args: () => ['quant', 'metrics', QUANT_CSV, '--returns', 'mixed_returns', '--benchmark', 'simple_benchmark'], store: 'published', keeps: () => [/sharpe/] },
  {
    args: () => ['quant', 'arima', ARIMA_CSV, '--column', 'spread_of_the_long_dated_treasury_basis'],
    store: 'published',
    keeps: () => [/^step +forecast +std\. error$/m],
  },
];

describe('at 80 columns', () => {
  /** The command's words, without its file arguments. */
  const nameOf = (args: string[]): string =>
    args
      .slice(0, 3)
      .filter((a) => !a.startsWith('-') && !a.includes('/'))
      .join(' ');
  it.each(CASES.map((c) => [nameOf(c.args()), c] as const))(
    '%s fits, and keeps its key columns',
    async (_, c) => {
      const run = await runCli(c.args(), c.store === 'engine' ? engineEnv : signalsEnv);
      expect(run.code, describeRun(run)).toBe(0);
      expect(overflowing(run.stdout), run.stdout).toEqual([]);
      for (const re of c.keeps()) expect(run.stdout).toMatch(re);
    },
    120_000,
  );
});

describe('without a width', () => {
  it('--wide and a pipe print every column whole: the full ids and hashes are there', async () => {
    const [wide, piped] = await Promise.all([
      runCli(['engine', 'traces', 'list', '--wide'], engineEnv),
      runCli(['engine', 'traces', 'list'], { ...engineEnv, COLUMNS: undefined }),
    ]);
    for (const run of [wide, piped]) {
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout).toMatch(/^txn_time +trace_id +agent_id +status +action +asset +notional +reasoning_hash$/m);
      expect(run.stdout).toContain(traces[1]);
      expect(run.stdout).toMatch(/ 987654\.5 USD +[0-9a-f]{64}$/m);
      expect(run.stdout).not.toContain('hidden');
    }
  }, 60_000);
});

/** A plain decimal number, as a spreadsheet or pandas reads one. */
const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;
/** A number with a unit glued on: `10000 USD`, `2.5%`, `12 bp`. */
const WITH_UNIT = /^[-+]?(\d+(\.\d*)?|\.\d+)\s*([A-Za-z%]+)$/;

/** Every problem of `csv`: a number with a unit, or a column that mixes numbers and other text. */
function csvProblems(csv: string): string[] {
  const [head, ...rows] = parse(csv) as string[][];
  const problems: string[] = [];
  head!.forEach((name, i) => {
    const cells = rows.map((r) => r[i]!).filter((v) => v !== '');
    for (const v of cells) if (WITH_UNIT.test(v)) problems.push(`${name}: "${v}" is a number with a unit`);
    const numbers = cells.filter((v) => NUMBER.test(v));
    if (numbers.length > 0 && numbers.length < cells.length)
      problems.push(`${name}: mixes numbers (${numbers[0]}) and text (${cells.find((v) => !NUMBER.test(v))})`);
  });
  return problems;
}

/** The CSV's values of `column`, every one of which must be a number. */
function numbersOf(csv: string, column: string): number[] {
  const [head, ...rows] = parse(csv) as string[][];
  const i = head!.indexOf(column);
  expect(i, `${column} in ${head!.join(',')}`).toBeGreaterThanOrEqual(0);
  return rows.map((r) => {
    expect(r[i], `${column} is a number`).toMatch(NUMBER);
    return Number(r[i]);
  });
}

describe('CSV keeps numbers numbers', () => {
  const LISTINGS: Array<{ args: string[]; store: 'engine' | 'published'; numeric: string[] }> = [
    { args: ['engine', 'traces', 'list', '--csv'], store: 'engine', numeric: ['notional'] },
    { args: ['engine', 'pending', '--age-seconds', '0', '--csv'], store: 'engine', numeric: ['notional'] },
    { args: ['engine', 'orphans', '--csv'], store: 'engine', numeric: ['notional'] },
    { args: ['engine', 'agents', 'list', '--csv'], store: 'engine', numeric: ['max_notional'] },
    { args: ['engine', 'tokens', 'list', '--csv'], store: 'engine', numeric: [] },
    { args: ['engine', 'audit-log', '--csv'], store: 'engine', numeric: [] },
    { args: ['engine', 'dropcopy', 'rejects', '--csv'], store: 'engine', numeric: [] },
    { args: ['signals', 'keys', 'list', '--csv'], store: 'engine', numeric: [] },
    {
      args: ['signals', 'history', '--start', '2008-09-01', '--end', '2008-12-31', '--csv'],
      store: 'published',
      numeric: ['risk_score', 'expansion', 'recovery', 'tightening', 'risk_off'],
    },
    {
      args: ['signals', 'export'],
      store: 'published',
      numeric: ['risk_score', 'equity_exposure', 'prob_expansion', 'prob_recovery', 'prob_tightening', 'prob_risk_off'],
    },
  ];

  it.each(LISTINGS.map((l) => [l.args.filter((a) => !a.startsWith('-') && !/^\d/.test(a)).join(' '), l] as const))(
    '%s',
    async (_, l) => {
      const run = await runCli(l.args, l.store === 'engine' ? engineEnv : signalsEnv);
      expect(run.code, describeRun(run)).toBe(0);
      expect(csvProblems(run.stdout), run.stdout).toEqual([]);
      for (const column of l.numeric) expect(numbersOf(run.stdout, column).length).toBeGreaterThan(0);
    },
    60_000,
  );

  it('the trace listings give the amount and its currency as two columns: 987654.5 and USD', async () => {
    const run = await runCli(['engine', 'traces', 'list', '--csv'], engineEnv);
    const [head, ...rows] = parse(run.stdout) as string[][];
    expect(head).toEqual(['txn_time', 'trace_id', 'agent_id', 'status', 'action', 'asset', 'notional', 'currency', 'reasoning_hash']);
    expect(rows.filter((r) => traces.includes(r[1]!)).map((r) => `${r[6]} ${r[7]}`)).toEqual(traces.map(() => '987654.5 USD'));
    expect(rows.find((r) => !traces.includes(r[1]!))!.slice(6, 8)).toEqual(['1753.5', 'USD']); // the drop copy's orphan: 7 × 250.5
  }, 60_000);

  it('GET /v1/export/csv', async () => {
    const app = await buildApp(configWith({ logLevel: 'silent' }), { sql: published.sql, logger: false, services: ['signals'] });
    try {
      const account = randomUUID();
      await published.sql`insert into signal_accounts (account_id, email, tier) values (${account}, ${`${account}@example.test`}, 'free')`;
      const { api_key } = await issueKey(published.sql, account);
      const res = await app.inject({ url: '/v1/export/csv', headers: { 'x-signals-key': api_key } });
      expect(res.statusCode, res.body).toBe(200);
      expect(csvProblems(res.body)).toEqual([]);
      expect(numbersOf(res.body, 'risk_score').length).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  }, 60_000);
});
