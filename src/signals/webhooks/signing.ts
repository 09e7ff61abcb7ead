/**
 * Webhook signatures: `X-Signals-Signature: sha256=<hex>`, the HMAC-SHA256 (RFC 2104, FIPS 198-1) of the
 * exact bytes of the request body under the webhook's secret (its UTF-8 text, `whsec_…`, is the key).
 * A receiver recomputes it over the raw body it received, before parsing it, and compares in constant time.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A new webhook secret: `whsec_` + 256 random bits (base64url). Shown once; kept to sign deliveries. */
export const newWebhookSecret = (): string => SECRET_PREFIX + randomBytes(32).toString('base64url');

/** The header value for `body` (a string is signed as its UTF-8 bytes). */
export function signatureHeader(secret: string, body: string | Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Whether `header` is the signature of `body` under `secret` (constant-time comparison). */
export function verifySignature(secret: string, body: string | Uint8Array, header: string | undefined): boolean {
  if (typeof header !== 'string' || !/^sha256=[0-9a-f]{64}$/.test(header)) return false;
  const expected = Buffer.from(signatureHeader(secret, body), 'utf8');
  return timingSafeEqual(expected, Buffer.from(header, 'utf8'));
}
