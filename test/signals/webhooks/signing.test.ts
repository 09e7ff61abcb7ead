/**
 * Webhook signatures: HMAC-SHA256 checked against RFC 4231 §4 test cases 1, 2 and 4 (the cases whose keys
 * are ASCII, as a webhook secret is), cross-checked with WebCrypto, and the verification a receiver runs.
 */
import { webcrypto } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, signatureHeader, verifySignature } from '../../../src/signals/webhooks/signing.js';

// RFC 4231, "Identifiers and Test Vectors for HMAC-SHA-224, HMAC-SHA-256, HMAC-SHA-384, and HMAC-SHA-512", §4.
const RFC4231: Array<{ case: number; key: string; data: string | Uint8Array; sha256: string }> = [
  { case: 1, key: '\x0b'.repeat(20), data: 'Hi There', sha256: 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7' },
  { case: 2, key: 'Jefe', data: 'what do ya want for nothing?', sha256: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843' },
  {
    case: 4,
    key: String.fromCharCode(...Array.from({ length: 25 }, (_, i) => i + 1)),
    data: new Uint8Array(50).fill(0xcd),
    sha256: '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b',
  },
];

async function webCryptoHmac(key: string, data: string | Uint8Array): Promise<string> {
  const k = await webcrypto.subtle.importKey('raw', new TextEncoder().encode(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  return Buffer.from(await webcrypto.subtle.sign('HMAC', k, bytes)).toString('hex');
}

describe('signatureHeader', () => {
  it.each(RFC4231)('RFC 4231 test case $case', async (v) => {
    expect(signatureHeader(v.key, v.data)).toBe(`sha256=${v.sha256}`);
    expect(await webCryptoHmac(v.key, v.data)).toBe(v.sha256);
  });

  it('signs a body as its UTF-8 bytes, the same as WebCrypto over those bytes', async () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ regime_change: { from: 'expansion', to: 'risk_off', to_label: 'Risk-off', note: 'héllo ✓' } });
    expect(signatureHeader(secret, body)).toBe(`sha256=${await webCryptoHmac(secret, body)}`);
    expect(signatureHeader(secret, Buffer.from(body, 'utf8'))).toBe(signatureHeader(secret, body));
  });
});

describe('verifySignature', () => {
  const secret = newWebhookSecret();
  const body = '{"type":"test"}';
  const good = signatureHeader(secret, body);

  it('accepts the signature of the exact body under the secret, and nothing else', () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(verifySignature(secret, body, good)).toBe(true);
    expect(verifySignature(secret, `${body} `, good)).toBe(false);
    expect(verifySignature(newWebhookSecret(), body, good)).toBe(false);
    expect(verifySignature(secret, body, good.toUpperCase())).toBe(false);
    expect(verifySignature(secret, body, good.slice(7))).toBe(false);
    expect(verifySignature(secret, body, undefined)).toBe(false);
    expect(verifySignature(secret, body, 'sha256=')).toBe(false);
  });
});
