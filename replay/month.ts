/**
 * A month of nights replayed on simulated time, as the nightly job lives it: the sources are local servers that
 * answer in FRED's and Yahoo's documented formats from the bundled files, revealing each value only once its
 * release rule says it was out (./reveal.ts); every weekday at 06:30 New York (the default `PIPELINE_CRON`) a
 * night runs (src/signals/nightly/night.ts) with the real fetch, the real readiness check and the real pipeline run,
 * on a real store; each trading morning an agent asks the signal service for a signed heartbeat and the engine to
 * authorize an order, over the real HTTP app, on the same clock. The scenario (./scenario.ts) puts a source down
 * for a night and revises a published value; when a night refuses, the replay takes the documented operator path
 * (`tradeseal pipeline run --full --yes`) and goes on.
 *
 * It writes nothing outside the store and the working directory it is given. What it returns is what the tests
 * assert and `npm run replay` prints (./report.ts).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../src/core/config.js';
import { createEngineContext, type EngineContext } from '../src/engine/context.js';
import { bootstrapOwnerToken } from '../src/engine/store/tokens.js';
import { buildApp } from '../src/http/app.js';
import { createSignalsContext, type SignalsContext } from '../src/signals/context.js';
import { issueAccountKey } from '../src/signals/ops/keys.js';
import { loadSigningKey } from '../src/signals/signing-key.js';
import type { Sql } from '../src/store/driver.js';
import { fetchAll } from '../pipeline/fetch/fetch-all.js';
import { CATALOGUE } from '../pipeline/ingest/catalogue.js';
import { isNyseTradingDay } from '../src/core/calendars/nyse.js';
import { deadlineAfter } from '../src/signals/nightly/deadline.js';
import { tradingDaysBetween } from '../src/signals/nightly/due.js';
import { runNight, type NightResult } from '../src/signals/nightly/night.js';
import { availableAt } from '../pipeline/release/publication.js';
import { zonedInstant } from '../src/core/calendars/zoned-time.js';
import { runPipeline, type RunSummary } from '../src/signals/publish/run.js';
import { yahooSource } from '../pipeline/sources/yahoo.js';
import { SimulatedClock } from './clock.js';
import { Releases } from './reveal.js';
import type { Scenario } from './scenario.js';
import { BUNDLED_DIR } from './vendors/bundled-bars.js';
import { startFredServer, TEST_KEY } from './vendors/fred-server.js';
import { startYahooServer } from './vendors/yahoo-server.js';

const NEW_YORK = 'America/New_York';
const MODEL = { model_id: 'replay-momentum', model_hash_hex: 'e'.repeat(64) };

/** What the agent got each trading morning. */
export interface Morning {
  /** The trading day of the morning (New York), and the instant the order was sent. */
  day: string;
  at: string;
  /** The regime in force and the data day it rests on, as the engine reported them. */
  regime: string | null;
  regime_date: string | null;
  stale: boolean | null;
  /** The heartbeat's regime (the signal service signs it), and the engine's answer to the order: 200 or the refusal's code. */
  heartbeat_regime_id: number | null;
  authorize: string;
}

export interface NightRecord {
  /** When the night started (ISO, UTC) and the day it found due. */
  at: string;
  due: string;
  status: NightResult['status'];
  attempts: number;
  reason: string | null;
  error_code: string | null;
  /** The days its run published and how the track log took them. */
  published: string[];
  track_log: RunSummary['track_log'];
  regime: string | null;
}

export interface OperatorStep {
  at: string;
  what: string;
  summary: RunSummary;
}

export interface ReplayResult {
  scenario: Scenario;
  /** The publication that put everything before the month in the store. */
  before: RunSummary;
  nights: NightRecord[];
  operator: OperatorStep[];
  mornings: Morning[];
  /** The data directory at the end: what the last night fetched. */
  dataDir: string;
  /** The simulated instant the replay ended. */
  endedAt: number;
}

export interface ReplayOptions {
  sql: Sql;
  /** Settings for the engine and the signal service (their store is `sql`); the replay turns Layer 2 on. */
  config: Config;
  /** A directory of the replay's own: its data directory is made in it. */
  workDir: string;
  scenario: Scenario;
  /** One line per step, for a reader watching (`npm run replay`). */
  say?: (line: string) => void;
}

/** The instant of `time` (HH:MM) on `day` in New York. */
const at = (day: string, time: string): number => zonedInstant(day, time, NEW_YORK);

const iso = (ms: number): string => new Date(ms).toISOString();

/** Every weekday from `first` to `last` (ISO dates), the days the default cron line fires. */
function weekdays(first: string, last: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${first}T00:00:00Z`); t <= Date.parse(`${last}T00:00:00Z`); t += 86_400_000) {
    const d = new Date(t);
    if (d.getUTCDay() !== 0 && d.getUTCDay() !== 6) out.push(d.toISOString().slice(0, 10));
  }
  return out;
}

/** The trading day before `day`. */
function tradingDayBefore(day: string): string {
  let t = Date.parse(`${day}T00:00:00Z`);
  for (;;) {
    t -= 86_400_000;
    const d = new Date(t).toISOString().slice(0, 10);
    if (isNyseTradingDay(d)) return d;
  }
}

export async function replayMonth(options: ReplayOptions): Promise<ReplayResult> {
  const { sql, scenario } = options;
  const say = options.say ?? (() => undefined);
  const dayBefore = tradingDayBefore(scenario.first);
  const clock = new SimulatedClock(availableAt(dayBefore));
  const releases = await Releases.load(BUNDLED_DIR, clock.now, scenario.revisions);
  // The store is new: its track log begins now, on the simulated clock (a migration stamps it with the real one,
  // and a log's heads never go back in time).
  await sql`update signal_log_state set last_timestamp_ms = ${clock.now()}, created_at_ms = ${clock.now()} where tree_size = 0`;

  // The data directory as a fetch at the first publication would have left it.
  const dataDir = path.join(options.workDir, 'data');
  await mkdir(dataDir, { recursive: true });
  for (const spec of CATALOGUE) await writeFile(path.join(dataDir, spec.file), releases.fileAt(spec.id, clock.now()));
  say(`${iso(clock.now())}: the history through ${dayBefore} published, from the data out by then`);
  const runOptions = { dataDir, seed: 7, costBps: options.config.signalCostBps, now: clock.now };
  const before = await runPipeline(sql, { ...runOptions, asOf: dayBefore, publish: true });

  const fred = await startFredServer(BUNDLED_DIR, [], { provider: releases.fredProvider });
  const yahoo = await startYahooServer(releases.marketProvider);
  // The scenario's outage: the market source answers 503 for the while it is down.
  yahoo.override = () =>
    scenario.outage.some((o) => clock.now() >= o.fromMs && clock.now() < o.toMs)
      ? { status: 503, body: '<html><body><h1>503 Service Unavailable</h1></body></html>', headers: { 'content-type': 'text/html' } }
      : undefined;
  const market = yahooSource({ yahooBaseUrl: yahoo.baseUrl });
  const request = { retries: 2, backoffMs: 30_000, maxBackoffMs: 120_000, timeoutMs: 10_000, sleep: clock.sleep };

  const app = await morningApp(sql, options.config, clock);
  const nights: NightRecord[] = [];
  const operator: OperatorStep[] = [];
  const mornings: Morning[] = [];
  try {
    for (const day of weekdays(scenario.firstNight, scenario.lastNight)) {
      clock.set(Math.max(clock.now(), at(day, '06:30')));
      const result = await runNight({
        sql,
        dataDir,
        now: clock.now,
        sleep: clock.sleep,
        retryMs: 10 * 60_000,
        fetch: (nowMs, series) =>
          fetchAll(dataDir, { nowMs, market, fred: { fredApiKey: TEST_KEY, fredBaseUrl: fred.baseUrl }, request, ...(series ? { series } : {}) }),
        run: (due) => runPipeline(sql, { ...runOptions, asOf: due, publish: true }),
        deadline: (started) => deadlineAfter(started, '09:00', NEW_YORK),
        log: () => undefined,
      });
      const record: NightRecord = {
        at: iso(at(day, '06:30')),
        due: result.due,
        status: result.status,
        attempts: result.attempts,
        reason: result.reason,
        error_code: result.error_code,
        published: published(result.run),
        track_log: result.run?.track_log ?? null,
        regime: result.run?.latest?.regime ?? null,
      };
      nights.push(record);
      say(
        `${record.at}: due ${record.due}, ${record.status}${record.published.length > 0 ? ` (${record.published.join(', ')})` : ''}${record.reason && record.status !== 'published' ? `: ${record.reason}` : ''}`,
      );
      if (result.status === 'refused' && result.error_code === 'history_not_extendable') {
        // The documented operator path: read the refusal, then recompute with a confirmation.
        clock.set(at(day, '07:15'));
        const summary = await runPipeline(sql, { ...runOptions, asOf: null, full: true }, { confirm: async () => 'replay-operator' });
        operator.push({ at: iso(clock.now()), what: 'tradeseal pipeline run --full --yes', summary });
        say(
          `${iso(clock.now())}: the operator recomputed the history (pipeline run --full --yes): ${summary.plan?.changed ?? 0} days rewritten, ${summary.track_log?.republication ?? 0} republications logged`,
        );
      }
      if (isNyseTradingDay(day)) mornings.push(await morning(app, clock, day, say));
    }
  } finally {
    await app.close();
    await fred.close();
    await yahoo.close();
  }
  return { scenario, before, nights, operator, mornings, dataDir, endedAt: clock.now() };
}

/** The days a run published, oldest first. */
function published(run: RunSummary | null): string[] {
  if (!run || run.days === 0 || run.first_day === null || run.last_day === null) return [];
  return tradingDaysBetween(tradingDayBefore(run.first_day), run.last_day);
}

interface MorningApp {
  app: FastifyInstance;
  ownerToken: string;
  engine: EngineContext;
  signals: SignalsContext;
  agent: { agent_id: string; token: string };
  signalsKey: string;
  close(): Promise<void>;
}

/** Both services over the real HTTP app on the simulated clock, Layer 2 on, one registered agent. */
async function morningApp(sql: Sql, base: Config, clock: SimulatedClock): Promise<MorningApp & { close(): Promise<void> }> {
  const key = await loadSigningKey(sql, base);
  const config: Config = { ...base, logLevel: 'silent', layer2Enabled: true, regimeOperatorPubkey: key.publicKey };
  const engine = await createEngineContext(config, sql, { now: clock.now });
  const signals = createSignalsContext(config, sql, { now: clock.now });
  const app = await buildApp(config, { sql, logger: false, engine, signals });
  await app.ready();
  const owner = await bootstrapOwnerToken(sql);
  if (!owner) throw new Error('the replay needs a store without an owner token');
  const call = (method: 'GET' | 'POST', url: string, body?: unknown, headers: Record<string, string> = {}) =>
    app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: body as object }) });
  const registered = await call(
    'POST',
    '/engine/admin/agents',
    { name: 'replay-agent', max_notional: 250_000, models: [MODEL] },
    { authorization: `Bearer ${owner.token}` },
  );
  const agentId = registered.json().agent_id as string;
  const token = await call('POST', '/engine/admin/tokens', { client_name: 'replay-agent', agent_ids: [agentId] }, { authorization: `Bearer ${owner.token}` });
  const signalsKey = (await issueAccountKey(sql, { email: 'replay@example.com', tier: 'owner' })).api_key;
  return {
    app,
    engine,
    signals,
    signalsKey,
    ownerToken: owner.token,
    agent: { agent_id: agentId, token: token.json().token as string },
    close: async () => {
      await app.close();
      await signals.close();
    },
  };
}

/** 09:35 New York on a trading day: a heartbeat from the signal service, then an order to the engine. */
async function morning(m: MorningApp, clock: SimulatedClock, day: string, say: (line: string) => void): Promise<Morning> {
  clock.set(Math.max(clock.now(), at(day, '09:35')));
  await m.engine.state.refresh();
  const inForce = await m.app.inject({ method: 'GET', url: '/engine/regime', headers: { authorization: `Bearer ${m.ownerToken}` } });
  const regime = inForce.statusCode === 200 ? inForce.json() : null;
  const hb = await m.app.inject({ method: 'GET', url: '/v1/engine/heartbeat', headers: { 'x-signals-key': m.signalsKey } });
  const heartbeat = hb.statusCode === 200 ? hb.json() : null;
  const order = {
    agent_id: m.agent.agent_id,
    ...MODEL,
    prompt_version: 'v1',
    feature_schema_id: 'macro-v3',
    hyperparameter_checksum: 'replay',
    action: 'Long',
    asset: 'SPY',
    order_type: 'Limit',
    venue_id: 'XNAS',
    quantity: 10,
    limit_price: 600,
    notional: 6000,
    client_order_id: randomUUID(),
    agent_valid_time: clock.now(),
    heartbeat,
  };
  const res = await m.app.inject({ method: 'POST', url: '/engine/authorize', headers: { authorization: `Bearer ${m.agent.token}` }, payload: order });
  const answer = res.statusCode === 200 ? '200' : `${res.statusCode} ${res.json().code ?? ''}`.trim();
  const out: Morning = {
    day,
    at: iso(clock.now()),
    regime: regime?.regime ?? null,
    regime_date: regime?.date ?? null,
    stale: regime?.freshness?.stale ?? null,
    heartbeat_regime_id: heartbeat?.regime_id ?? null,
    authorize: answer,
  };
  say(`${out.at}: the agent's order on ${day}: ${answer} (regime ${out.regime} of ${out.regime_date})`);
  return out;
}
