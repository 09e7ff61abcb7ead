/**
 * The pure heartbeat code (src/engine/heartbeat/*): the signed bytes of both schemes
 * (docs/decisions/0012-heartbeat-signature-schemes.md), signature parsing, verification, and the stateless
 * Layer 2 checks in their order. Signatures are cross-checked with node:crypto's Ed25519 as a second implementation.
 */
import { createPrivateKey, sign as nodeSign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateKeyPair, sign, toBase64 } from '../../../src/core/crypto/ed25519.js';
import { checkHeartbeat, heartbeatSignatureValid, type HeartbeatContext, type SignedHeartbeat } from '../../../src/engine/heartbeat/check.js';
import { formatSignature, heartbeatMessage, parseSignature } from '../../../src/core/records/heartbeat.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

describe('heartbeatMessage, ed25519 (binary layout)', () => {
  it('is u64 BE sequence_id ‖ u64 BE timestamp_ms ‖ 1 byte regime_id ‖ UTF-8 mta_ref', () => {
    const bytes = heartbeatMessage({ sequence_id: 1, timestamp_ms: 1_700_000_000_000, regime_id: 3, mta_ref: 'ab' }, 'ed25519');
    expect([...bytes]).toEqual([
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x00,
      0x01, // sequence_id 1
      0x00,
      0x00,
      0x01,
      0x8b,
      0xcf,
      0xe5,
      0x68,
      0x00, // 1700000000000 = 0x0000018BCFE56800
      0x03, // regime_id (risk_off)
      0x61,
      0x62, // "ab"
    ]);
  });

  it('carries a full 64-hex mta_ref as its 64 ASCII bytes, after 17 bytes of header', () => {
    const mta = '0123456789abcdef'.repeat(4);
    const bytes = heartbeatMessage({ sequence_id: 258, timestamp_ms: 0, regime_id: 0, mta_ref: mta }, 'ed25519');
    expect(bytes.length).toBe(17 + 64);
    expect(hex(bytes.subarray(0, 17))).toBe('0000000000000102' + '0000000000000000' + '00');
    expect(Buffer.from(bytes.subarray(17)).toString('ascii')).toBe(mta);
  });

  it('has no mta bytes when mta_ref is absent or null', () => {
    const absent = heartbeatMessage({ sequence_id: 7, timestamp_ms: 9, regime_id: 2 }, 'ed25519');
    const nul = heartbeatMessage({ sequence_id: 7, timestamp_ms: 9, regime_id: 2, mta_ref: null }, 'ed25519');
    expect(hex(absent)).toBe('0000000000000007' + '0000000000000009' + '02');
    expect(nul).toEqual(absent);
  });

  it('encodes mta_ref as UTF-8 (multi-byte characters)', () => {
    const bytes = heartbeatMessage({ sequence_id: 0, timestamp_ms: 0, regime_id: 1, mta_ref: 'é€' }, 'ed25519');
    expect(hex(bytes.subarray(17))).toBe('c3a9e282ac');
  });

  it('carries the largest safe integers exactly (big-endian, 8 bytes each)', () => {
    const bytes = heartbeatMessage({ sequence_id: Number.MAX_SAFE_INTEGER, timestamp_ms: 2 ** 40 + 5, regime_id: 255 }, 'ed25519');
    expect(hex(bytes)).toBe('001fffffffffffff' + '0000010000000005' + 'ff');
  });

  it('refuses a regime_id that does not fit in one byte', () => {
    expect(() => heartbeatMessage({ sequence_id: 0, timestamp_ms: 0, regime_id: 256 }, 'ed25519')).toThrow(RangeError);
    expect(() => heartbeatMessage({ sequence_id: 0, timestamp_ms: 0, regime_id: -1 }, 'ed25519')).toThrow(RangeError);
  });
});

describe('heartbeatMessage, ed25519-jcs', () => {
  it('is the RFC 8785 JCS text of {sequence_id, timestamp_ms, regime_id, mta_ref}', () => {
    const bytes = heartbeatMessage({ sequence_id: 1, timestamp_ms: 1_700_000_000_000, regime_id: 3, mta_ref: 'ab' }, 'ed25519-jcs');
    expect(Buffer.from(bytes).toString('utf8')).toBe('{"mta_ref":"ab","regime_id":3,"sequence_id":1,"timestamp_ms":1700000000000}');
  });

  it('omits mta_ref when absent or null', () => {
    for (const hb of [
      { sequence_id: 2, timestamp_ms: 5, regime_id: 0 },
      { sequence_id: 2, timestamp_ms: 5, regime_id: 0, mta_ref: null },
    ]) {
      expect(Buffer.from(heartbeatMessage(hb, 'ed25519-jcs')).toString('utf8')).toBe('{"regime_id":0,"sequence_id":2,"timestamp_ms":5}');
    }
  });

  it('accepts a regime_id beyond one byte (the JCS form has no such limit)', () => {
    expect(Buffer.from(heartbeatMessage({ sequence_id: 0, timestamp_ms: 0, regime_id: 70_000 }, 'ed25519-jcs')).toString()).toContain('"regime_id":70000');
  });
});

describe('parseSignature', () => {
  const sig = new Uint8Array(64).map((_, i) => i);
  const b64 = toBase64(sig);

  const table: Array<[string, string, { scheme: string } | null]> = [
    ['ed25519: prefix', `ed25519:${b64}`, { scheme: 'ed25519' }],
    ['bare base64 means ed25519', b64, { scheme: 'ed25519' }],
    ['ed25519-jcs: prefix', `ed25519-jcs:${b64}`, { scheme: 'ed25519-jcs' }],
    ['unpadded base64', `ed25519:${b64.replace(/=+$/, '')}`, { scheme: 'ed25519' }],
    ['unknown scheme', `rsa:${b64}`, null],
    ['scheme names are case-sensitive', `Ed25519:${b64}`, null],
    ['63 bytes', `ed25519:${toBase64(sig.subarray(0, 63))}`, null],
    ['65 bytes', `ed25519:${toBase64(new Uint8Array(65))}`, null],
    ['empty payload', 'ed25519:', null],
    ['empty string', '', null],
    ['not base64', 'ed25519:!!!!', null],
    ['URL-safe alphabet', `ed25519:${Buffer.from(new Uint8Array(64).fill(0xfb)).toString('base64url')}`, null],
    ['whitespace inside', `ed25519:${b64.slice(0, 10)} ${b64.slice(10)}`, null],
    ['two prefixes', `ed25519:ed25519:${b64}`, null],
  ];
  for (const [name, text, expected] of table) {
    it(`${name} → ${expected ? expected.scheme : 'null'}`, () => {
      const parsed = parseSignature(text);
      if (expected === null) {
        expect(parsed).toBeNull();
      } else {
        expect(parsed?.scheme).toBe(expected.scheme);
        expect(parsed?.bytes).toEqual(sig);
      }
    });
  }

  it('round-trips formatSignature', () => {
    expect(formatSignature('ed25519-jcs', sig)).toBe(`ed25519-jcs:${b64}`);
    expect(parseSignature(formatSignature('ed25519', sig))).toEqual({ scheme: 'ed25519', bytes: sig });
  });
});

describe('heartbeatSignatureValid', () => {
  const operator = generateKeyPair();
  const fields = { sequence_id: 42, timestamp_ms: 1_700_000_000_123, regime_id: 1, mta_ref: 'f'.repeat(64) };
  const signed = (scheme: 'ed25519' | 'ed25519-jcs', key = operator.secretKey): SignedHeartbeat => ({
    ...fields,
    signature: formatSignature(scheme, sign(heartbeatMessage(fields, scheme), key)),
  });

  it('verifies both schemes, and the bare form of ed25519', async () => {
    expect(await heartbeatSignatureValid(signed('ed25519'), operator.publicKey)).toBe(true);
    expect(await heartbeatSignatureValid(signed('ed25519-jcs'), operator.publicKey)).toBe(true);
    const bare = signed('ed25519');
    expect(await heartbeatSignatureValid({ ...bare, signature: bare.signature.slice('ed25519:'.length) }, operator.publicKey)).toBe(true);
  });

  it('agrees with node:crypto as a second Ed25519 implementation', async () => {
    // A PKCS#8 wrapper around the 32-byte seed (RFC 8410 §7).
    const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(operator.secretKey)]);
    const key = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
    const signature = nodeSign(null, heartbeatMessage(fields, 'ed25519'), key);
    expect(await heartbeatSignatureValid({ ...fields, signature: `ed25519:${signature.toString('base64')}` }, operator.publicKey)).toBe(true);
    expect(signature.toString('base64')).toBe(signed('ed25519').signature.slice('ed25519:'.length));
  });

  it('is false, never a throw, for a wrong key, other fields, the wrong scheme, malformed text, or no key configured', async () => {
    const other = generateKeyPair();
    const good = signed('ed25519');
    expect(await heartbeatSignatureValid(good, other.publicKey)).toBe(false);
    expect(await heartbeatSignatureValid(signed('ed25519', other.secretKey), operator.publicKey)).toBe(false);
    expect(await heartbeatSignatureValid({ ...good, sequence_id: 43 }, operator.publicKey)).toBe(false);
    expect(await heartbeatSignatureValid({ ...good, timestamp_ms: fields.timestamp_ms + 1 }, operator.publicKey)).toBe(false);
    expect(await heartbeatSignatureValid({ ...good, regime_id: 2 }, operator.publicKey)).toBe(false);
    expect(await heartbeatSignatureValid({ ...good, mta_ref: null }, operator.publicKey)).toBe(false);
    expect(await heartbeatSignatureValid({ ...good, signature: good.signature.replace('ed25519:', 'ed25519-jcs:') }, operator.publicKey)).toBe(false);
    expect(await heartbeatSignatureValid({ ...good, signature: 'ed25519:AAAA' }, operator.publicKey)).toBe(false);
    expect(await heartbeatSignatureValid({ ...good, regime_id: 300 }, operator.publicKey)).toBe(false);
    expect(await heartbeatSignatureValid(good, null)).toBe(false);
  });
});

describe('checkHeartbeat', () => {
  const NOW = 1_750_000_000_000;
  const HASH = 'ab'.repeat(32);
  const ctx: HeartbeatContext = { now: NOW, replayWindowMs: 30_000, regime: { regime_id: 2, hash: HASH }, requireMtaRef: false };
  const hb: SignedHeartbeat = { sequence_id: 9, timestamp_ms: NOW, regime_id: 2, mta_ref: HASH, signature: 'unused' };

  const table: Array<{ name: string; hb?: Partial<SignedHeartbeat>; valid?: boolean; ctx?: Partial<HeartbeatContext>; code: string | null; detail?: string }> =
    [
      { name: 'a good heartbeat', code: null },
      {
        name: 'bad signature',
        valid: false,
        code: 'heartbeat_signature_invalid',
        detail: 'heartbeat 9 does not carry a valid signature of the regime operator',
      },
      {
        name: 'bad signature is reported before an expired timestamp',
        valid: false,
        hb: { timestamp_ms: 0, regime_id: 0 },
        code: 'heartbeat_signature_invalid',
      },
      { name: '30000 ms old', hb: { timestamp_ms: NOW - 30_000 }, code: null },
      {
        name: '30001 ms old',
        hb: { timestamp_ms: NOW - 30_001 },
        code: 'heartbeat_expired',
        detail: `heartbeat timestamp_ms ${NOW - 30_001} is 30001 ms from the engine clock (window ±30000 ms)`,
      },
      { name: '30000 ms ahead', hb: { timestamp_ms: NOW + 30_000 }, code: null },
      {
        name: '30001 ms ahead',
        hb: { timestamp_ms: NOW + 30_001 },
        code: 'heartbeat_expired',
        detail: `heartbeat timestamp_ms ${NOW + 30_001} is -30001 ms from the engine clock (window ±30000 ms)`,
      },
      { name: 'custom window 5000: 5001 ms old', hb: { timestamp_ms: NOW - 5_001 }, ctx: { replayWindowMs: 5_000 }, code: 'heartbeat_expired' },
      { name: 'custom window 5000: 5000 ms old', hb: { timestamp_ms: NOW - 5_000 }, ctx: { replayWindowMs: 5_000 }, code: null },
      { name: 'expired is reported before a regime mismatch', hb: { timestamp_ms: NOW - 60_000, regime_id: 0 }, code: 'heartbeat_expired' },
      { name: 'no regime published', ctx: { regime: null }, code: 'regime_stale' },
      { name: 'another regime_id', hb: { regime_id: 3 }, code: 'heartbeat_regime_mismatch', detail: 'heartbeat regime_id 3 is not the current regime_id 2' },
      { name: 'regime mismatch is reported before an mta mismatch', hb: { regime_id: 3, mta_ref: 'x' }, code: 'heartbeat_regime_mismatch' },
      {
        name: 'another mta_ref',
        hb: { mta_ref: 'cd'.repeat(32) },
        code: 'heartbeat_mta_mismatch',
        detail: `heartbeat mta_ref ${'cd'.repeat(32)} is not the current regime hash ${HASH}`,
      },
      { name: 'mta_ref in upper case is another value', hb: { mta_ref: HASH.toUpperCase() }, code: 'heartbeat_mta_mismatch' },
      { name: 'no mta_ref, not required', hb: { mta_ref: undefined }, code: null },
      { name: 'null mta_ref, not required', hb: { mta_ref: null }, code: null },
      {
        name: 'no mta_ref, required',
        hb: { mta_ref: undefined },
        ctx: { requireMtaRef: true },
        code: 'heartbeat_mta_required',
        detail: 'the heartbeat carries no mta_ref and HEARTBEAT_REQUIRE_MTA_REF is on',
      },
      { name: 'null mta_ref, required', hb: { mta_ref: null }, ctx: { requireMtaRef: true }, code: 'heartbeat_mta_required' },
      { name: 'an empty mta_ref is present and wrong', hb: { mta_ref: '' }, code: 'heartbeat_mta_mismatch' },
      { name: 'the right mta_ref, required', ctx: { requireMtaRef: true }, code: null },
    ];
  for (const row of table) {
    it(`${row.code ?? 'PASS'}: ${row.name}`, () => {
      const verdict = checkHeartbeat({ ...hb, ...row.hb }, row.valid ?? true, { ...ctx, ...row.ctx });
      if (row.code === null) {
        expect(verdict).toEqual({ ok: true });
      } else {
        expect(verdict).toMatchObject({ ok: false, code: row.code });
        if (row.detail !== undefined && !verdict.ok) expect(verdict.detail).toBe(row.detail);
      }
    });
  }
});
