/**
 * `tradeseal engine erase AGENT_ID`: refuses without a confirmation (no terminal here) and without a
 * key-management provider, erases with `--yes`, and `engine traces show|verify` and `engine agents list`
 * then read the erased agent from the same store.
 */
import { createHash, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, describeRun, runCli, tempHome, type CliEnv } from '../helpers/cli.js';
import { engineHarness, type EngineHarness } from '../helpers/engine.js';
import { kmsConfig, kmsEnv, masterKeyFile } from '../helpers/kms.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

let h: EngineHarness;
const home = tempHome();
const file = masterKeyFile();
let env: CliEnv;
let agent: { agent_id: string; token: string };
let traceId: string;
let reasoningHash: string;
const regulatory = { mifid_decision_maker: 'Ada Cli-Erasure', jurisdiction: 'EU' };

beforeAll(async () => {
  h = await engineHarness({ config: kmsConfig(file) });
  env = cliEnv(home, h.store.url, kmsEnv(file));
  await h.publishRegime('expansion');
  agent = await h.registerAgent({ name: 'CLI Erasure Desk' });
  const res = await h.call('POST', '/engine/authorize', h.order(agent.agent_id, { regulatory }), agent.token);
  if (res.statusCode !== 200) throw new Error(`authorize: ${res.body}`);
  ({ trace_id: traceId, reasoning_hash: reasoningHash } = res.json());
}, 60_000);
afterAll(async () => h?.close());

describe('engine erase', () => {
  it('refuses without a key-management provider (exit 5, precondition_failed)', async () => {
    const r = await runCli(['engine', 'erase', agent.agent_id, '--yes', '--json'], cliEnv(home, h.store.url));
    expect(r.code, describeRun(r)).toBe(5);
    expect(r.json().error).toMatchObject({ code: 'precondition_failed' });
  }, 60_000);

  it('asks for a confirmation: none without a terminal (exit 2), and nothing is erased', async () => {
    const r = await runCli(['engine', 'erase', agent.agent_id], env);
    expect(r.code, describeRun(r)).toBe(2);
    expect(r.stderr).toContain('confirmation_required');
    expect(r.stderr).toContain('--yes');
    expect((await h.call('GET', `/engine/admin/agents/${agent.agent_id}`)).json()).toMatchObject({ name: 'CLI Erasure Desk', erased: false });
  }, 60_000);

  it('exit 3 for an unknown agent, exit 2 for a malformed id', async () => {
    const [unknown, malformed] = await Promise.all([
      runCli(['engine', 'erase', randomUUID(), '--yes'], env),
      runCli(['engine', 'erase', 'agent-7', '--yes'], env),
    ]);
    expect(unknown.code, describeRun(unknown)).toBe(3);
    expect(malformed.code, describeRun(malformed)).toBe(2);
    expect(malformed.stderr).toContain('AGENT_ID');
  }, 60_000);

  it('--yes erases; show, verify and agents list read the erased agent', async () => {
    const r = await runCli(['engine', 'erase', agent.agent_id, '--yes', '--json'], env);
    expect(r.code, describeRun(r)).toBe(0);
    const erased = r.json();
    expect(erased).toMatchObject({ agent_id: agent.agent_id, traces_affected: 1 });

    const [show, verify, list] = await Promise.all([
      runCli(['engine', 'traces', 'show', traceId, '--json'], env),
      runCli(['engine', 'traces', 'verify', traceId], env),
      runCli(['engine', 'agents', 'list'], env),
    ]);
    expect(show.code, describeRun(show)).toBe(0);
    const doc = show.json();
    expect(doc.regulatory).toBeNull();
    expect(doc.integrity).toMatchObject({ erased: true, erased_at: erased.erased_at });
    const { integrity, ...sealed } = doc;
    const text = canonicalize({ ...sealed, regulatory: { commitment: integrity.regulatory_commitment } });
    expect(sha256(text!)).toBe(reasoningHash);

    expect(verify.code, describeRun(verify)).toBe(0);
    expect(verify.stdout).toMatch(/^✓ regulatory_commitment: the personal data were erased at /m);
    expect(list.code, describeRun(list)).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${agent.agent_id}\\s+\\(erased\\)`));
    expect(list.stdout).not.toContain('CLI Erasure Desk');

    const again = await runCli(['engine', 'erase', agent.agent_id, '--json'], env);
    expect(again.code, describeRun(again)).toBe(0);
    expect(again.json()).toEqual({ agent_id: agent.agent_id, traces_affected: 0, erased_at: erased.erased_at });
  }, 60_000);
});
