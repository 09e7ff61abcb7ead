/** `tradeseal engine agents …` against a real store: input checks, register, list, add-model, the kill switch. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAgent } from '../../src/engine/store/agents.js';
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

const HASH_A = 'ab'.repeat(32);
const HASH_B = 'CD'.repeat(32);

describe('engine agents', () => {
  it('refuses bad input with exit 2, naming every bad flag, and registers nothing', async () => {
    const [badHash, badMany] = await Promise.all([
      runCli(['engine', 'agents', 'register', '--name', 'a', '--max-notional', '1000', '--model', `alpha-7:${HASH_A.slice(1)}`], env),
      runCli(['engine', 'agents', 'register', '--name', ' ', '--max-notional', '-5', '--model', 'no-colon', '--model', `ok:${HASH_A}`, '--json'], env),
    ]);
    // The API's message for models[0].model_hash_hex, named as the flag.
    expect(badHash.code, describeRun(badHash)).toBe(2);
    expect(badHash.stderr).toContain('--model: must match pattern "^[0-9a-f]{64}$"');
    expect(badHash.stderr).toMatch(/MODEL_ID:SHA256HEX/); // the hint

    expect(badMany.code, describeRun(badMany)).toBe(2);
    const { error } = badMany.json();
    expect(error.code).toBe('validation_failed');
    expect(error.errors.map((e: { field: string }) => e.field)).toEqual(['--name', '--max-notional', '--model']);
    expect(error.errors[2].message).toMatch(/"no-colon" is not MODEL_ID:SHA256HEX/);

    const [count] = await store.sql<Array<{ n: number }>>`select count(*)::int as n from agents`;
    expect(count?.n).toBe(0);
  }, 60_000);

  it('registers, lists, approves another model and suspends', async () => {
    const reg = await runCli(
      [
        'engine',
        'agents',
        'register',
        '--name',
        'momentum-1',
        '--max-notional',
        '250000',
        '--model',
        `alpha-7:${HASH_A}`,
        '--allowed-regime',
        'expansion',
        '--allowed-regime',
        'recovery',
        '--json',
      ],
      env,
    );
    expect(reg.code, describeRun(reg)).toBe(0);
    const agent = reg.json();
    expect(agent).toMatchObject({
      name: 'momentum-1',
      status: 'Active',
      max_notional: 250000,
      allowed_regimes: ['expansion', 'recovery'],
      models: [{ model_id: 'alpha-7', model_hash_hex: HASH_A }],
    });
    expect(await getAgent(store.sql, agent.agent_id)).toMatchObject({ name: 'momentum-1', max_notional: 250000 });

    const [list, listText, added, missing] = await Promise.all([
      runCli(['engine', 'agents', 'list', '--json'], env),
      runCli(['engine', 'agents', 'list'], env),
      runCli(['engine', 'agents', 'add-model', agent.agent_id, '--model', `alpha-8:${HASH_B}`], env),
      runCli(['engine', 'agents', 'add-model', '00000000-0000-4000-8000-000000000000', '--model', `alpha-8:${HASH_A}`], env),
    ]);
    expect(list.code, describeRun(list)).toBe(0);
    expect(list.json()).toMatchObject({ count: 1, agents: [{ agent_id: agent.agent_id, name: 'momentum-1' }] });
    expect(listText.stdout).toMatch(new RegExp(`${agent.agent_id}\\s+momentum-1\\s+Active\\s+250000\\s+expansion,recovery`));
    expect(added.code, describeRun(added)).toBe(0);
    // The hash is stored lowercase, the form agents send.
    expect(added.stdout).toContain(HASH_B.toLowerCase());
    expect(missing.code, describeRun(missing)).toBe(3);
    const models = (await getAgent(store.sql, agent.agent_id))?.models;
    expect(models).toEqual([
      { model_id: 'alpha-7', model_hash_hex: HASH_A },
      { model_id: 'alpha-8', model_hash_hex: HASH_B.toLowerCase() },
    ]);

    const [suspended, badStatus] = await Promise.all([
      runCli(['engine', 'agents', 'status', agent.agent_id, '--status', 'Suspended', '--reason', 'runaway order rate', '--json'], env),
      runCli(['engine', 'agents', 'status', agent.agent_id, '--status', 'Paused', '--reason', 'x'], env),
    ]);
    expect(suspended.code, describeRun(suspended)).toBe(0);
    expect(suspended.json()).toMatchObject({ status: 'Suspended', status_reason: 'runaway order rate' });
    expect(await getAgent(store.sql, agent.agent_id)).toMatchObject({ status: 'Suspended', status_reason: 'runaway order rate' });
    expect(badStatus.code, describeRun(badStatus)).toBe(2);
    expect(badStatus.stderr).toContain('--status: must be one of "Active", "Suspended", "Deregistered"');
  }, 90_000);
});
