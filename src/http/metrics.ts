/**
 * `GET /metrics` in the Prometheus text exposition format (prom-client), one registry per server:
 *
 * - `tradeseal_http_requests_total` and `tradeseal_http_request_duration_seconds` by method, route pattern
 *   (never the raw URL, so ids do not explode the label set) and status;
 * - `tradeseal_authorize_total` by outcome: `authorized`, `shadow_blocked`, or the refusal's code
 *   (`notional_cap_exceeded`, `heartbeat_replayed`, `validation_failed`, `service_unavailable`, …);
 * - `tradeseal_sweeper_runs_total` by result and `tradeseal_sweeper_last_run_timestamp_seconds`;
 * - read from the store at each scrape (bounded by a 1 s timeout; `tradeseal_store_up` 0 when it does not
 *   answer): `tradeseal_store_up`, `tradeseal_store_pool_max`, `tradeseal_pipeline_runs` by status with the
 *   last finished run's time, `tradeseal_pipeline_days_overdue` (trading days whose regime is due and not
 *   published: 0 every morning the nightly job did its work) and `tradeseal_pipeline_last_night` (1 for the
 *   status of the newest night), `tradeseal_webhook_queue_depth` (deliveries neither delivered nor failed),
 *   `tradeseal_traces_open` (authorized, not yet bound or expired);
 * - `tradeseal_singletons_running`: 1 in the process that runs the background jobs;
 * - `tradeseal_connections_refused_total` by the cap a connection was over (src/core/net/connection-caps.ts);
 * - Node's process metrics (`process_*`, `nodejs_*`: CPU, memory, event-loop lag, GC).
 *
 * Under `serve --workers N` a scrape reaches one worker, which answers for all of them: counters, histograms
 * and process figures are summed over the workers (event-loop lag averaged, as prom-client's own metrics
 * say), the store's figures are read once (`aggregator: 'first'`; `tradeseal_store_up` is the lowest of the
 * workers'), and `tradeseal_singletons_running` sums to 1 when one leader runs the jobs.
 *
 * Public like health: it shows counts and timings, never a token, key, trace content or personal data.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Sql } from 'postgres';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { storeAnswers } from './health.js';
import { dueDay, tradingDaysBetween } from '../signals/nightly/due.js';
import { NIGHT_STATUS_SQL } from '../signals/nightly/night-store.js';
import { publicRoute } from '../core/schemas.js';

const SCRAPE_STORE_TIMEOUT_MS = 1000;

export class ServerMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'tradeseal_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'tradeseal_http_request_duration_seconds',
    help: "Time from the request's arrival to its answer, by method, route pattern and status",
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly authorize = new Counter({
    name: 'tradeseal_authorize_total',
    help: "Authorize answers by outcome: authorized, shadow_blocked, or the refusal's code",
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly sweeps = new Counter({
    name: 'tradeseal_sweeper_runs_total',
    help: 'Expiry sweeps, by result (ok or failed)',
    labelNames: ['result'],
    registers: [this.registry],
  });
  readonly lastSweep = new Gauge({
    name: 'tradeseal_sweeper_last_run_timestamp_seconds',
    help: 'When the last expiry sweep finished (Unix seconds)',
    aggregator: 'max',
    registers: [this.registry],
  });
  readonly expired = new Counter({ name: 'tradeseal_traces_expired_total', help: 'PENDING traces the sweeper turned EXPIRED', registers: [this.registry] });
  readonly refusedConnections = new Counter({
    name: 'tradeseal_connections_refused_total',
    help: 'Connections closed as soon as they were accepted, by the cap they were over: server_cap (HTTP_MAX_CONNECTIONS) or address_cap (HTTP_MAX_CONNECTIONS_PER_ADDRESS)',
    labelNames: ['reason'],
    registers: [this.registry],
  });
  /** The FIX drop-copy session (src/engine/dropcopy/): fills applied by outcome, refused messages by answer, its state, the delay to commit. */
  readonly dropCopyFills = new Counter({
    name: 'tradeseal_dropcopy_fills_total',
    help: 'Fills (ExecutionReport 150=F) the FIX drop-copy session applied, by outcome: matched, divergent (it differs from the authorization or the bind of its trace), orphan, already_known, duplicate (a resent or repeated ExecID with the same fields, which changes nothing) or conflict (a repeated ExecID of the same session and trading day with other fields, kept for the officer)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly dropCopyRejects = new Counter({
    name: 'tradeseal_dropcopy_rejects_total',
    help: 'Inbound messages the FIX drop-copy session refused and kept for the officer, by answer: reject (35=3), business_reject (35=j), none (bytes that were not a message)',
    labelNames: ['answer'],
    registers: [this.registry],
  });
  readonly dropCopyLoggedOn = new Gauge({
    name: 'tradeseal_dropcopy_logged_on',
    help: 'Whether this process runs the FIX drop-copy session and it is logged on (1) or not (0)',
    aggregator: 'max',
    registers: [this.registry],
  });
  readonly dropCopyDelay = new Histogram({
    name: 'tradeseal_dropcopy_apply_delay_seconds',
    help: "Time from a fill's receipt by the FIX drop-copy session to the commit that reconciled it (an ORPHAN trace created or a match recorded)",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly leader = new Gauge({
    name: 'tradeseal_singletons_running',
    help: 'Processes running the background jobs (sweeper, sequencer, webhook worker): 1 for the elected leader of `serve --workers N`, or a server alone',
    registers: [this.registry],
  });
  /**
   * The exposition `GET /metrics` answers: this registry's; a worker of `serve --workers N` replaces it with the
   * figures of every worker, aggregated by the primary (src/http/cluster/metrics.ts).
   */
  exposition: () => Promise<string> = () => this.registry.metrics();

  constructor(sql: Sql) {
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    // Every store-derived gauge awaits one read per scrape (gauges are collected concurrently).
    let read: { at: number; figures: Promise<StoreFigures | null> } | null = null;
    const figures = (): Promise<StoreFigures | null> => {
      if (!read || performance.now() - read.at > SCRAPE_STORE_TIMEOUT_MS) read = { at: performance.now(), figures: readStoreFigures(sql) };
      return read.figures;
    };
    new Gauge({
      name: 'tradeseal_store_up',
      aggregator: 'min',
      help: "1 when the store answered the scrape's query within a second",
      registers,
      async collect() {
        this.set((await figures()) ? 1 : 0);
      },
    });
    new Gauge({
      name: 'tradeseal_store_pool_max',
      help: "Connections the server's store pool may open",
      registers,
      collect() {
        this.set(Number((sql as unknown as { options?: { max?: number } }).options?.max ?? 0));
      },
    });
    new Gauge({
      name: 'tradeseal_pipeline_runs',
      aggregator: 'first',
      help: 'Pipeline runs recorded in the store, by status',
      labelNames: ['status'],
      registers,
      async collect() {
        const f = await figures();
        this.reset();
        for (const [status, n] of Object.entries(f?.runs ?? {})) this.set({ status }, n);
      },
    });
    new Gauge({
      name: 'tradeseal_pipeline_last_published_timestamp_seconds',
      aggregator: 'first',
      help: 'When the last published pipeline run finished (Unix seconds)',
      registers,
      async collect() {
        const f = await figures();
        if (f?.last_published) this.set(f.last_published.getTime() / 1000);
      },
    });
    new Gauge({
      name: 'tradeseal_pipeline_days_overdue',
      aggregator: 'first',
      help: 'Trading days whose regime is due (06:30 New York on the next trading day) and not published; alert when above 0',
      registers,
      async collect() {
        const f = await figures();
        if (f) this.set(f.newest_day === null ? 1 : tradingDaysBetween(f.newest_day, dueDay(Date.now())).length);
      },
    });
    new Gauge({
      name: 'tradeseal_pipeline_last_night',
      aggregator: 'first',
      help: 'The newest night of the nightly job: 1 for its status (running, published, late, refused, failed, or abandoned: running an hour past its deadline)',
      labelNames: ['status'],
      registers,
      async collect() {
        const f = await figures();
        this.reset();
        if (f?.last_night) this.set({ status: f.last_night }, 1);
      },
    });
    new Gauge({
      name: 'tradeseal_webhook_queue_depth',
      aggregator: 'first',
      help: 'Webhook deliveries queued: neither delivered nor failed',
      registers,
      async collect() {
        const f = await figures();
        if (f) this.set(f.queued);
      },
    });
    new Gauge({
      name: 'tradeseal_traces_open',
      aggregator: 'first',
      help: 'Traces authorized and not yet bound or expired',
      registers,
      async collect() {
        const f = await figures();
        if (f) this.set(f.open);
      },
    });
  }

  /** Records one sweep's result (the sweeper calls it). */
  sweep(result: { expired: number } | null): void {
    this.sweeps.inc({ result: result ? 'ok' : 'failed' });
    this.lastSweep.set(Date.now() / 1000);
    if (result) this.expired.inc(result.expired);
  }
}

interface StoreFigures {
  runs: Record<string, number> | null;
  last_published: Date | null;
  /** The newest published day; null when nothing is. */
  newest_day: string | null;
  /** The status of the newest night of the nightly job; null before the first. */
  last_night: string | null;
  queued: number;
  open: number;
}

/**
 * The store's figures in one round trip, each through an index (runs are few; the queue and the open
 * traces have partial indexes), or null when the store does not answer within the scrape's timeout.
 */
async function readStoreFigures(sql: Sql): Promise<StoreFigures | null> {
  if (!(await storeAnswers(sql, SCRAPE_STORE_TIMEOUT_MS))) return null;
  try {
    const [row] = await sql<StoreFigures[]>`
      select (select jsonb_object_agg(status, n) from (select status, count(*)::int as n from model_runs group by status) r) as runs,
             (select max(finished_at) from model_runs where status = 'published') as last_published,
             (select max(date)::text from signal_days) as newest_day,
             (select ${sql.unsafe(NIGHT_STATUS_SQL)} from pipeline_nights order by started_at desc limit 1) as last_night,
             (select count(*)::int from webhook_deliveries where delivered_at is null and failed_at is null) as queued,
             (select count(*)::int from traces where verification_status = 'Pending') as open`;
    return row ?? null;
  } catch {
    return null;
  }
}

/** The outcome label of an authorize answer, from its status and body. */
export function authorizeOutcome(status: number, payload: unknown): string {
  if (typeof payload !== 'string') return String(status);
  try {
    const body = JSON.parse(payload) as { code?: string; shadow_blocked?: boolean };
    if (status === 200) return body.shadow_blocked ? 'shadow_blocked' : 'authorized';
    return body.code ?? String(status);
  } catch {
    return String(status);
  }
}

/** Counts every answer and serves `GET /metrics`. */
export function installMetrics(app: FastifyInstance, metrics: ServerMetrics): void {
  app.addHook('onSend', async (req: FastifyRequest, reply: FastifyReply, payload) => {
    if (req.routeOptions.url === '/engine/authorize' && req.method === 'POST') metrics.authorize.inc({ outcome: authorizeOutcome(reply.statusCode, payload) });
    return payload;
  });
  app.addHook('onResponse', async (req: FastifyRequest, reply: FastifyReply) => {
    const labels = { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
    metrics.requests.inc(labels);
    metrics.latency.observe(labels, reply.elapsedTime / 1000);
  });
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['operations'],
        operationId: 'getMetrics',
        security: publicRoute,
        summary: 'Prometheus metrics: requests, latency, authorize outcomes, store, sweeper, pipeline, webhook queue',
        response: { 200: { description: 'The Prometheus text exposition format, version 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
    async (_req, reply) => {
      const text = await metrics.exposition();
      return reply.type(metrics.registry.contentType).send(text);
    },
  );
}
