/**
 * One rule source for the HTTP API and the CLI: the same input is refused with the same code, field and message
 * over HTTP (`app.inject`) and from the command line (`tradeseal … --json`, exit 2), both on one real store,
 * and what one side accepts the other accepts too. Covers the rules of the engine operations (which agents a
 * token may name, a reason for shadow mode, the trace window) and limits of the routes' schemas.
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readShadowMode } from '../../src/engine/store/shadow.js';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv, type CliResult } from '../helpers/cli.js';
import { engineHarness, MODEL_HASH, type EngineHarness } from '../helpers/engine.js';

let h: EngineHarness;
let env: CliEnv;
let agentId: string;
const home = tempHome();

beforeAll(async () => {
  h = await engineHarness();
  env = cliEnv(home, h.store.url);
  agentId = (await h.registerAgent()).agent_id;
}, 60_000);
afterAll(async () => h?.close());

interface Refusal {
  code: string;
  errors: Array<{ field: string; message: string }>;
}

/** The code and errors of an HTTP refusal, once its status is checked. */
function httpRefusal(res: LightMyRequestResponse, status = 422): Refusal {
  expect(res.statusCode, res.body).toBe(status);
  const { code, errors } = res.json();
  return { code, errors };
}

/** The code and errors of a `--json` run's refusal, once its exit code is checked. */
function cliRefusal(run: CliResult, exit = 2): Refusal {
  expect(run.code, describeRun(run)).toBe(exit);
  const { code, errors } = run.json().error;
  return { code, errors };
}

const refusal = (...errors: Array<[string, string]>): Refusal => ({
  code: 'validation_failed',
  errors: errors.map(([field, message]) => ({ field, message })),
});

const count = async (table: 'engine_tokens' | 'agents'): Promise<number> =>
  (await h.store.sql.unsafe<Array<{ n: number }>>(`select count(*)::int as n from ${table}`))[0]!.n;

const issue = (body: Record<string, unknown>) => h.call('POST', '/engine/admin/tokens', body);
const cli = (...args: string[]) => runCli([...args, '--json'], env);

describe('tokens: agent_ids binds client tokens only, to registered agents', () => {
  it.each(['owner', 'auditor'])(
    'an %s token naming agents: 422 and exit 2 on the agent ids, with the same message; nothing is issued',
    async (role) => {
      const before = await count('engine_tokens');
      const [res, run] = await Promise.all([
        issue({ client_name: `${role}-bound`, role, agent_ids: [agentId] }),
        cli('engine', 'tokens', 'issue', '--client-name', `${role}-bound`, '--role', role, '--agent-id', agentId),
      ]);
      const message = `binds client tokens only; an ${role} token is never bound to agents`;
      expect(httpRefusal(res)).toEqual(refusal(['agent_ids', message]));
      expect(cliRefusal(run)).toEqual(refusal(['--agent-id', message]));
      expect(await count('engine_tokens')).toBe(before);
    },
    60_000,
  );

  it('unknown agent ids: 422 and exit 2 listing each unknown id with its field; nothing is issued', async () => {
    const [ghost1, ghost2] = [randomUUID(), randomUUID()];
    const before = await count('engine_tokens');
    const [res, run] = await Promise.all([
      issue({ client_name: 'ghosts', agent_ids: [agentId, ghost1, ghost2] }),
      cli('engine', 'tokens', 'issue', '--client-name', 'ghosts', '--agent-id', agentId, '--agent-id', ghost1, '--agent-id', ghost2),
    ]);
    expect(httpRefusal(res)).toEqual(refusal(['agent_ids[1]', `no agent ${ghost1} is registered`], ['agent_ids[2]', `no agent ${ghost2} is registered`]));
    expect(cliRefusal(run)).toEqual(refusal(['--agent-id', `no agent ${ghost1} is registered`], ['--agent-id', `no agent ${ghost2} is registered`]));
    expect(run.json().error.hint).toMatch(/agents list/);
    expect(await count('engine_tokens')).toBe(before);
  }, 60_000);

  it('a client token bound to a registered agent, and owner and auditor tokens without agents, are issued by both', async () => {
    const runs = await Promise.all([
      issue({ client_name: 'desk', agent_ids: [agentId.toUpperCase()] }),
      issue({ client_name: 'audit', role: 'auditor' }),
      cli('engine', 'tokens', 'issue', '--client-name', 'desk', '--agent-id', agentId.toUpperCase()),
      cli('engine', 'tokens', 'issue', '--client-name', 'audit', '--role', 'auditor'),
    ]);
    const [httpDesk, httpAudit] = runs.slice(0, 2).map((r) => (r as LightMyRequestResponse).json());
    const [cliDesk, cliAudit] = runs.slice(2).map((r) => (r as CliResult).json());
    for (const desk of [httpDesk, cliDesk]) expect(desk).toMatchObject({ role: 'client', agent_ids: [agentId] });
    for (const audit of [httpAudit, cliAudit]) expect(audit).toMatchObject({ role: 'auditor', agent_ids: null });
  }, 60_000);
});

describe('shadow mode: turning it on requires a reason', () => {
  it('without a reason, or a blank one: 422 and exit 2 on reason, with the same message; it stays off', async () => {
    const [none, nullReason, blank, cliNone, cliBlank] = await Promise.all([
      h.call('POST', '/engine/admin/shadow-mode', { enabled: true }),
      h.call('POST', '/engine/admin/shadow-mode', { enabled: true, reason: null }),
      h.call('POST', '/engine/admin/shadow-mode', { enabled: true, reason: ' \t ' }),
      cli('engine', 'shadow', 'on'),
      cli('engine', 'shadow', 'on', '--reason', ' \t '),
    ]);
    const required = 'is required to turn shadow mode on';
    expect(httpRefusal(none)).toEqual(refusal(['reason', required]));
    expect(httpRefusal(nullReason)).toEqual(refusal(['reason', required]));
    expect(cliRefusal(cliNone)).toEqual(refusal(['--reason', required]));
    expect(httpRefusal(blank)).toEqual(refusal(['reason', 'must not be blank']));
    expect(cliRefusal(cliBlank)).toEqual(refusal(['--reason', 'must not be blank']));
    expect(await readShadowMode(h.store.sql)).toMatchObject({ enabled: false, changed_at: null });
  }, 60_000);

  it('with a reason both turn it on; both turn it off without one', async () => {
    const on = await h.call('POST', '/engine/admin/shadow-mode', { enabled: true, reason: 'policy 1.1 dry-run' });
    expect(on.statusCode, on.body).toBe(200);
    const off = await cli('engine', 'shadow', 'off');
    expect(off.code, describeRun(off)).toBe(0);
    expect(off.json()).toMatchObject({ enabled: false, reason: null });
    const onAgain = await cli('engine', 'shadow', 'on', '--reason', 'policy 1.2 dry-run');
    expect(onAgain.code, describeRun(onAgain)).toBe(0);
    expect(onAgain.json()).toMatchObject({ enabled: true, reason: 'policy 1.2 dry-run' });
    const offAgain = await h.call('POST', '/engine/admin/shadow-mode', { enabled: false });
    expect(offAgain.statusCode, offAgain.body).toBe(200);
    expect(await readShadowMode(h.store.sql)).toMatchObject({ enabled: false, reason: null });
  }, 60_000);
});

describe("a limit of a route's schema is the CLI's limit", () => {
  it('a 201-character client name is refused by both with the same message; a 200-character one is issued by both', async () => {
    const [long, ok] = ['n'.repeat(201), 'n'.repeat(200)];
    const [res, run, resOk, runOk] = await Promise.all([
      issue({ client_name: long }),
      cli('engine', 'tokens', 'issue', '--client-name', long),
      issue({ client_name: ok }),
      cli('engine', 'tokens', 'issue', '--client-name', ok),
    ]);
    expect(httpRefusal(res)).toEqual(refusal(['client_name', 'must NOT have more than 200 characters']));
    expect(cliRefusal(run)).toEqual(refusal(['--client-name', 'must NOT have more than 200 characters']));
    expect(resOk.statusCode, resOk.body).toBe(200);
    expect(runOk.code, describeRun(runOk)).toBe(0);
    expect(runOk.json().client_name).toBe(ok);
  }, 60_000);

  it('a fractional ttl_days is accepted by both; zero is refused by both with the same message', async () => {
    const [res, run, zero, cliZero] = await Promise.all([
      issue({ client_name: 'half-day', ttl_days: 0.5 }),
      cli('engine', 'tokens', 'issue', '--client-name', 'half-day', '--ttl-days', '0.5'),
      issue({ client_name: 'never', ttl_days: 0 }),
      cli('engine', 'tokens', 'issue', '--client-name', 'never', '--ttl-days', '0'),
    ]);
    for (const t of [res.json(), run.json()]) expect(Date.parse(t.expires_at) - Date.parse(t.created_at)).toBe(43_200_000);
    expect(httpRefusal(zero)).toEqual(refusal(['ttl_days', 'must be > 0']));
    expect(cliRefusal(cliZero)).toEqual(refusal(['--ttl-days', 'must be > 0']));
  }, 60_000);

  const register = (patch: Record<string, unknown>) =>
    h.call('POST', '/engine/admin/agents', { name: 'parity', max_notional: 1000, models: [{ model_id: 'm', model_hash_hex: MODEL_HASH }], ...patch });
  const registerCli = (flags: Record<string, string | string[]>) => {
    const all: Record<string, string | string[]> = { '--name': 'parity', '--max-notional': '1000', '--model': `m:${MODEL_HASH}`, ...flags };
    return cli('engine', 'agents', 'register', ...Object.entries(all).flatMap(([flag, v]) => [v].flat().flatMap((x) => [flag, x])));
  };

  it.each([
    ['a blank name', { name: '   ' }, { '--name': '   ' }, 'name', '--name'],
    ['a max_notional above 1e15', { max_notional: 1e16 }, { '--max-notional': '1e16' }, 'max_notional', '--max-notional'],
    ['a max_notional that is no number', { max_notional: 'lots' }, { '--max-notional': 'lots' }, 'max_notional', '--max-notional'],
    ['a short model hash', { models: [{ model_id: 'm', model_hash_hex: 'abc' }] }, { '--model': 'm:abc' }, 'models[0].model_hash_hex', '--model'],
    ['an empty model id', { models: [{ model_id: '', model_hash_hex: MODEL_HASH }] }, { '--model': `:${MODEL_HASH}` }, 'models[0].model_id', '--model'],
    ['an unknown regime', { allowed_regimes: ['boom'] }, { '--allowed-regime': 'boom' }, 'allowed_regimes[0]', '--allowed-regime'],
    [
      'a regime named twice',
      { allowed_regimes: ['expansion', 'expansion'] },
      { '--allowed-regime': ['expansion', 'expansion'] },
      'allowed_regimes',
      '--allowed-regime',
    ],
  ])(
    'agents register with %s: the same refusal from both, and no agent',
    async (_name, patch, flags, field, flag) => {
      const before = await count('agents');
      const [res, run] = await Promise.all([register(patch), registerCli(flags)]);
      const http = httpRefusal(res);
      expect(http.errors.map((e) => e.field)).toEqual([field]);
      expect(cliRefusal(run)).toEqual(refusal([flag, http.errors[0]!.message]));
      expect(await count('agents')).toBe(before);
    },
    60_000,
  );

  it('agents register without a model is accepted by both (models are approved later)', async () => {
    const [res, run] = await Promise.all([
      h.call('POST', '/engine/admin/agents', { name: 'bare', max_notional: 1000, models: [] }),
      cli('engine', 'agents', 'register', '--name', 'bare', '--max-notional', '1000'),
    ]);
    expect(res.statusCode, res.body).toBe(201);
    expect(run.code, describeRun(run)).toBe(0);
    for (const a of [res.json(), run.json()]) expect(a).toMatchObject({ name: 'bare', models: [], allowed_regimes: null });
  }, 60_000);
});

describe('agents status and add-model', () => {
  it('a status without a reason is accepted by both; a blank reason or an unknown status is refused by both', async () => {
    const path = `/engine/admin/agents/${agentId}/status`;
    const [res, run] = await Promise.all([h.call('PATCH', path, { status: 'Active' }), cli('engine', 'agents', 'status', agentId, '--status', 'Active')]);
    expect(res.statusCode, res.body).toBe(200);
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.json()).toMatchObject({ status: 'Active', status_reason: null });

    const [blank, cliBlank, paused, cliPaused] = await Promise.all([
      h.call('PATCH', path, { status: 'Suspended', reason: '' }),
      cli('engine', 'agents', 'status', agentId, '--status', 'Suspended', '--reason', ''),
      h.call('PATCH', path, { status: 'Paused' }),
      cli('engine', 'agents', 'status', agentId, '--status', 'Paused'),
    ]);
    expect(httpRefusal(blank)).toEqual(refusal(['reason', 'must not be blank']));
    expect(cliRefusal(cliBlank)).toEqual(refusal(['--reason', 'must not be blank']));
    const statuses = 'must be one of "Active", "Suspended", "Deregistered"';
    expect(httpRefusal(paused)).toEqual(refusal(['status', statuses]));
    expect(cliRefusal(cliPaused)).toEqual(refusal(['--status', statuses]));
    expect((await h.call('GET', `/engine/admin/agents/${agentId}`)).json().status).toBe('Active');
  }, 60_000);

  it('an unknown agent: 404 and exit 3 with the same detail', async () => {
    const ghost = randomUUID();
    const [model, cliModel, status, cliStatus] = await Promise.all([
      h.call('POST', `/engine/admin/agents/${ghost}/models`, { model_id: 'm', model_hash_hex: MODEL_HASH }),
      cli('engine', 'agents', 'add-model', ghost, '--model', `m:${MODEL_HASH}`),
      h.call('PATCH', `/engine/admin/agents/${ghost}/status`, { status: 'Suspended' }),
      cli('engine', 'agents', 'status', ghost, '--status', 'Suspended'),
    ]);
    for (const res of [model, status]) expect(res.statusCode).toBe(404);
    for (const run of [cliModel, cliStatus]) expect(run.code, describeRun(run)).toBe(3);
    for (const body of [model.json(), status.json(), cliModel.json().error, cliStatus.json().error]) {
      expect(body).toMatchObject({ code: 'not_found', detail: `no agent ${ghost}` });
    }
  }, 60_000);
});

describe('reading traces', () => {
  it('a window that ends before it starts: 422 and exit 2 on from, with the same message', async () => {
    const [res, run] = await Promise.all([
      h.call('GET', '/engine/traces?from=1772409600000&to=1772323200000'),
      cli('engine', 'traces', 'list', '--from', '2026-03-02', '--to', '2026-03-01'),
    ]);
    const message = 'must not be later than the end of the window (2026-03-01T00:00:00.000Z)';
    expect(httpRefusal(res)).toEqual(refusal(['from', message]));
    expect(cliRefusal(run)).toEqual(refusal(['--from', message]));
  }, 60_000);

  it('limits of the listings: the same refusal from both', async () => {
    const [res, run, pending, cliPending] = await Promise.all([
      h.call('GET', '/engine/traces?limit=5001'),
      cli('engine', 'traces', 'list', '--limit', '5001'),
      h.call('GET', '/engine/pending?age_seconds=-1'),
      cli('engine', 'pending', '--age-seconds', '-1'),
    ]);
    expect(httpRefusal(res)).toEqual(refusal(['limit', 'must be <= 5000']));
    expect(cliRefusal(run)).toEqual(refusal(['--limit', 'must be <= 5000']));
    expect(httpRefusal(pending)).toEqual(refusal(['age_seconds', 'must be >= 0']));
    expect(cliRefusal(cliPending)).toEqual(refusal(['--age-seconds', 'must be >= 0']));
  }, 60_000);

  it('a urn:uuid: id, which the store cannot read, is a 422 and exit 2 rather than a store fault', async () => {
    const id = `urn:uuid:${randomUUID()}`;
    const [res, run, revoke, cliRevoke] = await Promise.all([
      h.call('GET', `/engine/trace/${id}`),
      cli('engine', 'traces', 'show', id),
      h.call('DELETE', `/engine/admin/tokens/${id}`),
      cli('engine', 'tokens', 'revoke', id),
    ]);
    expect(httpRefusal(res)).toEqual(refusal(['trace_id', 'must be a valid uuid']));
    expect(cliRefusal(run)).toEqual(refusal(['TRACE_ID', 'must be a valid uuid']));
    expect(httpRefusal(revoke)).toEqual(refusal(['token_id', 'must be a valid uuid']));
    expect(cliRefusal(cliRevoke)).toEqual(refusal(['ID', 'must be a valid uuid']));
    // The refusal is the API's; the hint adds what the CLI takes besides a whole id.
    expect(run.json().error.hint).toBe(
      'give a trace id (a UUID) or a unique prefix of it of at least 4 hex digits, as `tradeseal engine traces list` shows them',
    );
    expect(cliRevoke.json().error.hint).toBe(
      'give a token id (a UUID) or a unique prefix of it of at least 4 hex digits, as `tradeseal engine tokens list` shows them',
    );
  }, 60_000);
});
