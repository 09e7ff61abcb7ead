/** `tradeseal engine keys gen` and `tradeseal engine policy show|check`: no store involved. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromBase64, parsePublicKey, publicKeyFromSecret, sign, verify } from '../../src/core/crypto/ed25519.js';
import { loadPolicy } from '../../src/engine/policy/policy.js';
import { cliEnv, describeRun, REPO_ROOT, runCli, tempHome } from '../helpers/cli.js';

const DEFAULT_POLICY = path.join(REPO_ROOT, 'data/policy/default.json');
const home = tempHome();
const env = cliEnv(home, undefined, { POLICY_PATH: DEFAULT_POLICY });

describe('engine keys gen', () => {
  it('gives a key pair whose public key verifies what the secret key signs, in every encoding', async () => {
    const [a, text] = await Promise.all([runCli(['engine', 'keys', 'gen', '--json'], env), runCli(['engine', 'keys', 'gen'], env)]);
    expect(a.code, describeRun(a)).toBe(0);
    const pair = a.json();
    const secret = new Uint8Array(Buffer.from(pair.secret_key.hex, 'hex'));
    expect(secret.length).toBe(32);
    expect(fromBase64(pair.secret_key.base64)).toEqual(secret);
    const pub = parsePublicKey(pair.public_key.hex);
    expect(parsePublicKey(pair.public_key.base64)).toEqual(pub);
    expect(parsePublicKey(pair.public_key.pem)).toEqual(pub);
    expect(publicKeyFromSecret(secret)).toEqual(pub);
    const message = new TextEncoder().encode('heartbeat 42');
    const signature = sign(message, secret);
    expect(verify(signature, message, pub)).toBe(true);
    expect(verify(signature, new TextEncoder().encode('heartbeat 43'), pub)).toBe(false);
    expect(pair.env).toBe(`REGIME_OPERATOR_PUBKEY=${pair.public_key.hex}`);

    expect(text.code, describeRun(text)).toBe(0);
    expect(text.stdout).not.toContain(pair.public_key.hex); // a fresh pair each run
    expect(text.stdout).toMatch(/^ {2}export REGIME_OPERATOR_PUBKEY=[0-9a-f]{64}$/m);
    expect(text.stdout).toMatch(/-----BEGIN PUBLIC KEY-----/);
  }, 60_000);
});

describe('engine policy', () => {
  it('show prints the policy in force; check accepts the default and lists every bad field of a broken copy', async () => {
    const broken = JSON.parse(fs.readFileSync(DEFAULT_POLICY, 'utf8'));
    delete broken.version;
    broken.regimes.risk_off.max_notional_scale = 2;
    broken.max_orders_per_second = 0;
    broken.surprise = true;
    const brokenFile = path.join(home, 'broken-policy.json');
    fs.writeFileSync(brokenFile, JSON.stringify(broken));
    const expected = loadPolicy(DEFAULT_POLICY);

    const [show, ok, bad, badJson] = await Promise.all([
      runCli(['engine', 'policy', 'show'], env),
      runCli(['engine', 'policy', 'check', 'data/policy/default.json'], env),
      runCli(['engine', 'policy', 'check', brokenFile], env),
      runCli(['engine', 'policy', 'check', brokenFile, '--json'], env),
    ]);
    expect(show.code, describeRun(show)).toBe(0);
    expect(show.stdout).toMatch(new RegExp(`hash\\s+${expected.hash}`));
    expect(show.stdout).toMatch(/risk_off\s+none \(reduce_only orders only\)\s+0\.25/);
    expect(show.stdout).toMatch(/USD\s+1000000/);
    expect(show.stdout).toMatch(new RegExp(`policy\\s+${expected.document.id} ${expected.document.version}`));

    expect(ok.code, describeRun(ok)).toBe(0);
    expect(ok.stdout).toContain(`valid, hash ${expected.hash}`);

    expect(bad.code, describeRun(bad)).toBe(2);
    for (const field of ['version', 'regimes.risk_off.max_notional_scale', 'max_orders_per_second', 'surprise']) expect(bad.stderr).toContain(`  ${field}: `);
    expect(badJson.code).toBe(2);
    const fields = badJson
      .json()
      .error.errors.map((e: { field: string }) => e.field)
      .sort();
    expect(fields).toEqual(['max_orders_per_second', 'regimes.risk_off.max_notional_scale', 'surprise', 'version']);
  }, 60_000);
});
