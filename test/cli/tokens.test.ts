/** `tradeseal engine tokens …` against a real store: bootstrap once, issue, list, revoke. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLiveToken } from '../../src/engine/store/tokens.js';
import { registerAgent } from '../../src/engine/store/agents.js';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { testStore, type TestStore } from '../helpers/db.js';

let store: TestStore;
let env: CliEnv;
const home = tempHome();
beforeAll(async () => {
  store = await testStore();
  env = cliEnv(home, store.url);
});
afterAll(async () => store?.close());

const TOKEN = /^tse_[A-Za-z0-9_-]{43}$/m;

describe('engine tokens', () => {
  it('bootstrap prints the first owner token once, then refuses with exit 4', async () => {
    const first = await runCli(['engine', 'tokens', 'bootstrap'], env);
    expect(first.code, describeRun(first)).toBe(0);
    const secret = TOKEN.exec(first.stdout)?.[0];
    expect(secret).toBeDefined();
    expect(first.stdout).toMatch(/shown once/);
    expect(await findLiveToken(store.sql, secret!)).toMatchObject({ role: 'owner' });

    const again = await runCli(['engine', 'tokens', 'bootstrap'], env);
    expect(again.code, describeRun(again)).toBe(4);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/owner token already exists/);
    expect(again.stderr).toMatch(/tokens issue/); // the hint

    const json = await runCli(['engine', 'tokens', 'bootstrap', '--json'], env);
    expect(json.code, describeRun(json)).toBe(4);
    expect(json.json()).toMatchObject({ error: { code: 'owner_token_exists', exit: 4 } });
  }, 60_000);

  it('issue, list and revoke round trip; the secret is never listed', async () => {
    const agent = await registerAgent(store.sql, { name: 'desk-agent', max_notional: 1000, models: [{ model_id: 'm', model_hash_hex: 'a'.repeat(64) }] });
    const issued = await runCli(['engine', 'tokens', 'issue', '--client-name', 'desk-7', '--agent-id', agent.agent_id, '--ttl-days', '30', '--json'], env);
    expect(issued.code, describeRun(issued)).toBe(0);
    const token = issued.json();
    expect(token).toMatchObject({ client_name: 'desk-7', role: 'client', agent_ids: [agent.agent_id], revoked_at: null });
    expect(token.token).toMatch(TOKEN);
    const days = (Date.parse(token.expires_at) - Date.parse(token.created_at)) / 86_400_000;
    expect(days).toBeCloseTo(30, 5);
    expect(await findLiveToken(store.sql, token.token)).toMatchObject({ token_id: token.token_id });

    const [owner, auditorBound, unknownAgent] = await Promise.all([
      runCli(['engine', 'tokens', 'issue', '--client-name', 'ops', '--role', 'owner'], env),
      runCli(['engine', 'tokens', 'issue', '--client-name', 'audit', '--role', 'auditor', '--agent-id', agent.agent_id], env),
      runCli(['engine', 'tokens', 'issue', '--client-name', 'x', '--agent-id', '00000000-0000-4000-8000-000000000000'], env),
    ]);
    expect(owner.code, describeRun(owner)).toBe(0);
    expect(owner.stdout).toMatch(TOKEN);
    expect(auditorBound.code, describeRun(auditorBound)).toBe(2);
    expect(auditorBound.stderr).toContain('--agent-id');
    // The agent is named in the request's fields, not its address: a bad field (422 over HTTP), not a 404.
    expect(unknownAgent.code, describeRun(unknownAgent)).toBe(2);
    expect(unknownAgent.stderr).toMatch(/validation_failed[\s\S]*--agent-id: no agent 00000000-0000-4000-8000-000000000000 is registered/);

    const revoked = await runCli(['engine', 'tokens', 'revoke', token.token_id, '--json'], env);
    expect(revoked.code, describeRun(revoked)).toBe(0);
    expect(revoked.json()).toMatchObject({ token_id: token.token_id });
    expect(await findLiveToken(store.sql, token.token)).toBeNull();

    const [list, listText, missing, notUuid] = await Promise.all([
      runCli(['engine', 'tokens', 'list', '--json'], env),
      runCli(['engine', 'tokens', 'list'], env),
      runCli(['engine', 'tokens', 'revoke', '00000000-0000-4000-8000-000000000000'], env),
      runCli(['engine', 'tokens', 'revoke', token.token], env),
    ]);
    expect(list.code, describeRun(list)).toBe(0);
    const listed = list.json();
    expect(listed.count).toBe(3); // bootstrap, desk-7, ops
    expect(listed.tokens.find((t: { token_id: string }) => t.token_id === token.token_id)).toMatchObject({
      client_name: 'desk-7',
      revoked_at: expect.any(String),
    });
    expect(list.stdout).not.toMatch(/tse_/);
    expect(list.stdout).not.toMatch(/token_hash/);
    expect(listText.stdout).toMatch(new RegExp(`${token.token_id}\\s+desk-7\\s+client\\s+revoked`));
    expect(listText.stdout).not.toMatch(/tse_/);
    expect(missing.code, describeRun(missing)).toBe(3);
    expect(missing.stderr).toMatch(/not_found/);
    expect(notUuid.code, describeRun(notUuid)).toBe(2);
    expect(notUuid.stderr).toMatch(/token secret/);
  }, 90_000);
});
