/**
 * The terminal view against a remote engine (`engine orphans --url … --token …` on a terminal): the same tabs,
 * keyset pages, filter and trace as on the local store, read over real HTTP from a running server (whose
 * sequencer logs the traces), and `v` checks the trace's log inclusion against the public key given, or says
 * it did not without one.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineSource, storeSource } from '../../src/cli/attention/source.js';
import { configWith } from '../../src/core/config.js';
import { logKeyLoader } from '../../src/engine/store/log-key.js';
import { bootstrapOwnerToken } from '../../src/engine/store/tokens.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { frameWhen, KEY, openView } from '../helpers/attention-view.js';
import { testStore, type TestStore } from '../helpers/db.js';
import { MODEL_HASH } from '../helpers/engine.js';

let store: TestStore;
let server: RunningServer;
let owner = '';
let logKey: Uint8Array;
const mismatched: string[] = [];

async function call(method: string, path: string, token: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

beforeAll(async () => {
  store = await testStore();
  const config = configWith({ databaseUrl: store.url, logLevel: 'silent', port: 0 });
  server = await startServer(config, { services: ['engine'] });
  owner = (await bootstrapOwnerToken(store.sql))!.token;
  logKey = (await logKeyLoader(store.sql, config)()).publicKey;
  await call('POST', '/engine/admin/regime', owner, { regime: 'expansion', risk_score: 0.2, reason: 'test' });
  const agent = await call('POST', '/engine/admin/agents', owner, {
    name: 'remote-view',
    max_notional: 200_000,
    models: [{ model_id: 'alpha-7', model_hash_hex: MODEL_HASH }],
  });
  const token = (await call('POST', '/engine/admin/tokens', owner, { client_name: 'remote-view', agent_ids: [agent.agent_id] })).token;
  // Nine MISMATCH traces, newest first in `mismatched`, one of them on MSFT.
  for (let i = 0; i < 9; i++) {
    const asset = i === 4 ? 'MSFT' : 'AAPL';
    const order = {
      agent_id: agent.agent_id,
      model_id: 'alpha-7',
      model_hash_hex: MODEL_HASH,
      prompt_version: 'p-3',
      feature_schema_id: 'fs-1',
      hyperparameter_checksum: 'h-9',
      action: 'Long',
      asset,
      order_type: 'Limit',
      venue_id: 'XNAS',
      quantity: 100,
      limit_price: 190,
      notional: 19_000,
      client_order_id: randomUUID(),
      agent_valid_time: Date.now(),
    };
    const { trace_id } = await call('POST', '/engine/authorize', token, order);
    await call('POST', '/engine/bind-execution', token, {
      trace_id,
      exchange_tx_id: `X-${i}`,
      execution_status: 'Filled',
      asset,
      executed_quantity: 100,
      executed_side: 'Short',
    });
    mismatched.unshift(trace_id);
  }
  // The server's sequencer logs committed traces within a second.
  for (let i = 0; i < 50; i++) {
    const head = await call('GET', '/engine/log/head', owner);
    if (head.tree_size >= 18) break;
    await new Promise((r) => setTimeout(r, 100));
  }
}, 120_000);
afterAll(async () => {
  await server?.close();
  await store?.close();
});

const rows = (f: string): string[] => mismatched.filter((id) => f.includes(id.slice(0, 8)));

describe('the terminal view against a remote engine', () => {
  it('pages, filters and opens traces over HTTP as it does on the local store', async () => {
    const here = await openView(storeSource(store.sql, null), 14);
    const there = await openView(engineSource({ url: server.url, token: owner }, logKey), 14);
    try {
      for (const v of [here, there]) {
        // Each step waits for the frame it expects (its page loaded), then compares the rows.
        const shows = async (keys: string[], expected: string[]): Promise<string> => {
          await v.press(...keys);
          const f = await frameWhen(v.frame, (g) => !g.includes('loading…') && JSON.stringify(rows(g)) === JSON.stringify(expected));
          expect(rows(f)).toEqual(expected);
          return f;
        };
        const first = await shows([KEY.right, KEY.right], mismatched.slice(0, 7));
        expect(first).toContain('page 1, more: n');
        await shows(['n'], mismatched.slice(7));
        await shows(['p'], mismatched.slice(0, 7));
        await shows(['/', 'msft', KEY.enter], [mismatched[4]!]);
        await shows(['/', ...Array(4).fill('\u007f'), KEY.enter], mismatched.slice(0, 7));
      }
      // The same frames, but for the time of the last refresh.
      const strip = (f: string): string => f.replace(/refreshed \S+/, '');
      expect(strip(there.frame())).toBe(strip(here.frame()));
      const opened = await there.press(KEY.enter);
      expect(opened).toContain(`trace ${mismatched[0]}`);
      expect(opened).toContain('"agent": {');
    } finally {
      here.view.unmount();
      there.view.unmount();
    }
  }, 60_000);

  it('v verifies over HTTP and checks log inclusion here against the key given', async () => {
    const there = await openView(engineSource({ url: server.url, token: owner }, logKey), 30);
    try {
      await there.press(KEY.right, KEY.right);
      const verified = await there.press('v');
      expect(verified).toContain('the trace is valid');
      expect(verified).toMatch(/✓ log inclusion: leaf \d+ is in the tree of \d+ leaves/);
      expect(verified).toMatch(/in the transparency log: head of \d+ signed, the key given with --public-key/);
    } finally {
      there.view.unmount();
    }
    const wrongKey = await openView(engineSource({ url: server.url, token: owner }, new Uint8Array(32).fill(7)), 30);
    try {
      await wrongKey.press(KEY.right, KEY.right);
      const refused = await wrongKey.press('v');
      expect(refused).toMatch(/✗ log key_id: /);
      expect(refused).toContain('the trace is NOT proven in the transparency log');
    } finally {
      wrongKey.view.unmount();
    }
    const noKey = await openView(engineSource({ url: server.url, token: owner }, null), 30);
    try {
      await noKey.press(KEY.right, KEY.right);
      expect(await noKey.press('v')).toContain('· log: not checked: pass --public-key');
    } finally {
      noKey.view.unmount();
    }
  }, 60_000);
});
