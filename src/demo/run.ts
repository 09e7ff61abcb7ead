/**
 * `tradeseal demo`: a whole working day of the product in a minute, on an embedded store of its own (never the
 * store of DATABASE_URL, so an operator's data are never touched). It runs the pipeline on the bundled data
 * when nothing is published there yet, starts both services on one port (Layer 2 on: every order carries a
 * heartbeat signed by the signal service), registers simulated agents and drives them (./scenario.ts). Its
 * engine runs a FIX drop-copy session as acceptor on loopback, to which the demo's exchange (./exchange.ts)
 * reports the fill nobody authorized.
 *
 * The bundled data end in 2025, and the engine fails closed on stale data (`regime_stale`). The demo says so,
 * then publishes an operator's broadcast of the latest published regime, the documented way to trade on a
 * regime the data no longer vouch for, and releases it at the end: the staleness rule is never loosened. The
 * demo's engine expires unbound traces after a few seconds (TRACE_EXPIRY_MS) so that one case can show it.
 */
import net from 'node:net';
import path from 'node:path';
import type { Config, DropCopyConfig } from '../core/config.js';
import { issueEngineToken } from '../engine/ops/tokens.js';
import { logKeyLoader } from '../engine/store/log-key.js';
import { sequenceOnce } from '../engine/store/log-sequence.js';
import { sweep } from '../engine/sweeper.js';
import { startServer, type RunningServer } from '../http/server.js';
import { issueAccountKey } from '../signals/ops/keys.js';
import { loadSigningKey } from '../signals/signing-key.js';
import { hasPublishedSignals } from '../signals/store/history.js';
import { openStore } from '../store/db.js';
import type { Sql } from '../store/driver.js';
import { markDemoHome } from './home.js';
import { migrate } from '../store/migrate.js';
import { runPipeline, type RunSummary, type StageRunner } from '../signals/publish/run.js';

import { client, expectStatus } from './client.js';
import { streamFills } from './exchange.js';
import { registerAgents, runScenario, type DemoCase } from './scenario.js';

/** How long the demo's engine keeps a trace PENDING before the sweeper expires it. */
export const DEMO_EXPIRY_MS = 3000;
export const DEMO_ACTOR = 'demo';

export interface DemoOptions {
  /** The demo's own embedded store lives under this directory. */
  home: string;
  port: number;
  runner: StageRunner;
  say: (line: string) => void;
  /** Called with the running server before it stops (the command opens the terminal view there). */
  whileRunning?: (server: RunningServer, owner: string) => Promise<void>;
}

export interface DemoSummary {
  home: string;
  url: string;
  pipeline: RunSummary | null;
  stale_regime: { regime: string; date: string; age_days: number } | null;
  broadcast: { regime: string; risk_score: number; hash: string } | null;
  released: boolean;
  cases: DemoCase[];
}

/** The CompIDs of the demo's FIX drop copy: the engine's, and its exchange's. */
export const DEMO_ENGINE_COMP_ID = 'TRADESEAL';
export const DEMO_EXCHANGE_COMP_ID = 'XNAS-DEMO';

/**
 * The demo's settings: the user's, with its own embedded store and port, Layer 2 on, the signal service's key
 * trusted, and a FIX drop-copy session (acceptor on loopback, `fixPort`) for its exchange to report fills to.
 */
export function demoConfig(settings: Config, home: string, port: number, operatorKey: Uint8Array | null, fixPort: number | null = null): Config {
  const dropCopy: DropCopyConfig | null =
    fixPort === null
      ? null
      : {
          role: 'acceptor',
          host: '127.0.0.1',
          port: fixPort,
          senderCompId: DEMO_ENGINE_COMP_ID,
          targetCompId: DEMO_EXCHANGE_COMP_ID,
          heartbeatS: 30,
          reconnectS: 5,
          tls: null,
        };
  return Object.freeze({
    ...settings,
    databaseUrl: null,
    home,
    port,
    layer2Enabled: true,
    regimeOperatorPubkey: operatorKey,
    traceExpiryMs: DEMO_EXPIRY_MS,
    engineOwnerToken: null,
    tlsCert: null,
    tlsKey: null,
    tlsClientCa: null,
    logLevel: 'warn' as Config['logLevel'],
    dropCopy,
  });
}

/** A port free on loopback now, for the demo's FIX acceptor. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** How long the demo waits for its exchange's fill to be reconciled. */
const DROP_COPY_WAIT_MS = 15_000;

/** How the engine reconciled the fill with this ExecID, once it has; null when not within `waitMs`. */
async function reconciledFill(sql: Sql, execId: string, waitMs: number): Promise<{ trace_id: string; outcome: string } | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const [row] = await sql<Array<{ trace_id: string; outcome: string }>>`select trace_id, outcome from dropcopy_executions where exec_id = ${execId}`;
    if (row) return row;
    if (Date.now() > deadline) return null;
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function runDemo(settings: Config, options: DemoOptions): Promise<DemoSummary> {
  const { say } = options;
  const home = path.resolve(options.home);
  say(`store: the demo's own embedded store under ${home}`);
  // Before the server: the data it serves and the key its engine trusts.
  const prepared = demoConfig(settings, home, options.port, null);
  const store = await openStore(prepared, { purpose: 'demo' });
  markDemoHome(home);
  let pipeline: RunSummary | null = null;
  let operatorKey: Uint8Array;
  try {
    await migrate(store.sql);
    if (!(await hasPublishedSignals(store.sql))) {
      say('nothing published in this store yet: running the pipeline on the bundled data');
      pipeline = await runPipeline(
        store.sql,
        {
          dataDir: settings.pipelineDataDir,
          asOf: null,
          seed: settings.pipelineSeed,
          costBps: settings.signalCostBps,
          trackLogSigningKey: settings.signalLogSigningKey,
          keySettings: settings,
        },
        { runner: options.runner },
      );
    }
    operatorKey = (await loadSigningKey(store.sql, settings)).publicKey;
  } finally {
    await store.close();
  }

  const fixPort = await freePort();
  const server = await startServer(demoConfig(settings, home, options.port, operatorKey, fixPort), { port: options.port });
  const summary: DemoSummary = { home, url: server.url, pipeline, stale_regime: null, broadcast: null, released: false, cases: [] };
  let ownerToken = '';
  try {
    say(`both services on ${server.url} (Layer 2 on: heartbeats signed by the signal service)`);
    const call = client(server.url);
    const owner = (await issueEngineToken(server.store.sql, { client_name: 'demo operator', role: 'owner' }, DEMO_ACTOR)).token;
    ownerToken = owner;
    const ownerAuth = { authorization: `Bearer ${owner}` };
    const signalsKey = (await issueAccountKey(server.store.sql, { email: `demo-${Date.now()}@example.com`, tier: 'engine_sidecar' })).api_key;

    const current = expectStatus(await call('GET', '/engine/regime', undefined, ownerAuth), 200, 'the regime in force');
    if (current.freshness?.stale) {
      const ageDays = Math.round(current.freshness.age_ms / 86_400_000);
      summary.stale_regime = { regime: current.regime, date: current.date, age_days: ageDays };
      say(`the bundled data end on ${current.date} (${ageDays} days ago): the engine refuses every order on stale data (regime_stale)`);
      say(`so the demo publishes an operator's broadcast of the latest published regime (${current.regime}) and releases it at the end`);
      const published = expectStatus(
        await call(
          'POST',
          '/engine/admin/regime',
          {
            regime: current.regime,
            risk_score: current.risk_score,
            reason: `demo: the bundled data end on ${current.date}; released when the demo ends`,
          },
          ownerAuth,
        ),
        201,
        'the operator broadcast',
      );
      summary.broadcast = { regime: published.regime, risk_score: published.risk_score, hash: published.hash };
    }

    const agents = await registerAgents(call, owner);
    say(`registered ${Object.keys(agents).length} simulated agents: ${Object.keys(agents).join(', ')}`);
    summary.cases = await runScenario(call, owner, signalsKey, agents, {
      expiryMs: DEMO_EXPIRY_MS,
      say: (line) => say(`  ${line}`),
      sweep: async () => (await sweep(server.store.sql, Date.now(), DEMO_EXPIRY_MS)).expired,
      dropCopy: async (execution) => {
        await streamFills(
          { host: '127.0.0.1', port: fixPort, senderCompId: DEMO_EXCHANGE_COMP_ID, targetCompId: DEMO_ENGINE_COMP_ID, timeoutMs: DROP_COPY_WAIT_MS },
          [execution],
        );
        return reconciledFill(server.store.sql, execution.exchange_tx_id, DROP_COPY_WAIT_MS);
      },
    });
    // Every trace in the transparency log before anyone looks (the server's sequencer would within a second).
    const key = await logKeyLoader(server.store.sql, settings)();
    for (
      let pass = await sequenceOnce(server.store.sql, key, Date.now());
      pass.status !== 'idle';
      pass = await sequenceOnce(server.store.sql, key, Date.now())
    ) {
      if (pass.status === 'busy') await new Promise((r) => setTimeout(r, 50));
    }
    await options.whileRunning?.(server, owner);
    return summary;
  } finally {
    // Released however the demo ends: its broadcast never outlives it.
    if (summary.broadcast) {
      const released = await client(server.url)(
        'POST',
        '/engine/admin/regime/release',
        { reason: 'demo ended' },
        { authorization: `Bearer ${ownerToken}` },
      ).catch(() => null);
      summary.released = released?.status === 200;
      say(
        summary.released
          ? 'released the operator broadcast: the engine fails closed again on the stale bundled data'
          : "could not release the operator broadcast: run `tradeseal regime release` with TRADESEAL_HOME set to the demo's store",
      );
    }
    await server.close();
  }
}
