/**
 * An engine for the tests of what a compliance officer reads (the drop-copy status, its refused messages, the
 * terminal view): a server on a fresh store, its owner token, one agent with a client token for it, and an
 * auditor token. `call` speaks to the server with the owner's token and fails on any answer that is not 2xx.
 */
import { configWith } from '../../src/core/config.js';
import { bootstrapOwnerToken } from '../../src/engine/store/tokens.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { testStore, type TestStore } from './db.js';
import { MODEL_HASH } from './engine.js';

export interface OfficerEngine {
  store: TestStore;
  server: RunningServer;
  owner: string;
  agentId: string;
  /** A client token of the agent: it may read traces, not the session. */
  client: string;
  auditor: string;
  call: (method: string, path: string, body?: unknown) => Promise<any>;
  close: () => Promise<void>;
}

export async function startOfficerEngine(name: string): Promise<OfficerEngine> {
  const store = await testStore();
  const server = await startServer(configWith({ databaseUrl: store.url, logLevel: 'silent', port: 0 }), { services: ['engine'] });
  const owner = (await bootstrapOwnerToken(store.sql))!.token;
  const call = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${owner}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = await res.json();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const agent = await call('POST', '/engine/admin/agents', { name, max_notional: 200_000, models: [{ model_id: 'alpha-7', model_hash_hex: MODEL_HASH }] });
  const client = (await call('POST', '/engine/admin/tokens', { client_name: name, agent_ids: [agent.agent_id] })).token;
  const auditor = (await call('POST', '/engine/admin/tokens', { client_name: `${name}-officer`, role: 'auditor' })).token;
  return {
    store,
    server,
    owner,
    agentId: agent.agent_id,
    client,
    auditor,
    call,
    close: async () => {
      await server.close();
      await store.close();
    },
  };
}
