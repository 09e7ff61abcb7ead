/**
 * The demo's exchange (src/demo/exchange.ts) against the engine's FIX drop-copy acceptor under `startServer`, on
 * a real socket and a real PostgreSQL: the fill it reports for an order nobody authorized becomes an ORPHAN
 * trace through the live session, and a second run of the exchange (a new session, sequence numbers reset at
 * logon) is reconciled as well, as a second demo run on the same store is.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith } from '../../src/core/config.js';
import { streamFills } from '../../src/demo/exchange.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { freePort, waitUntil } from '../helpers/dropcopy-server.js';

const ENGINE = 'TRADESEAL';
const EXCHANGE = 'XNAS-DEMO';

let store: TestStore;
let server: RunningServer;
let port: number;

beforeAll(async () => {
  store = await testStore();
  port = await freePort();
  const config = configWith({
    databaseUrl: store.url,
    logLevel: 'silent',
    port: 0,
    dropCopy: { role: 'acceptor', host: '127.0.0.1', port, senderCompId: ENGINE, targetCompId: EXCHANGE, heartbeatS: 30, reconnectS: 1, tls: null },
  });
  server = await startServer(config, { services: ['engine'], leaderRetryMs: 100 });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await store?.close();
});

const fill = (agentId: string) => ({
  exchange_tx_id: `XNAS-DEMO-ORPHAN-${randomUUID().slice(0, 8)}`,
  asset: 'TSLA',
  side: 'Long' as const,
  quantity: 40,
  price: 250,
  agent_id: agentId,
  execution_time: '2026-03-02T14:30:00.412Z',
});

describe("the demo's exchange", () => {
  it('reports a fill over a FIX session that the engine turns into an ORPHAN trace, twice in two sessions', async () => {
    for (const round of [1, 2]) {
      const execution = fill(randomUUID());
      await streamFills({ host: '127.0.0.1', port, senderCompId: EXCHANGE, targetCompId: ENGINE, timeoutMs: 20_000 }, [execution]);
      const [row] = await waitUntil(
        `round ${round}: the fill reconciled`,
        () =>
          store.sql<
            Array<{ outcome: string; trace_id: string }>
          >`select outcome, trace_id::text from dropcopy_executions where exec_id = ${execution.exchange_tx_id}`,
        (rows) => rows.length > 0,
        20_000,
      );
      expect(row!.outcome).toBe('orphan');
      const [trace] = await store.sql<Array<{ status: string; asset: string; quantity: string; agent_id: string }>>`
        select status, asset, quantity::text, agent_id::text from traces where trace_id = ${row!.trace_id}`;
      expect(trace).toEqual({ status: 'ORPHAN', asset: 'TSLA', quantity: '40', agent_id: execution.agent_id });
    }
  }, 60_000);
});
