/**
 * `cert_expiry_status` of health (docs/decisions/0014-mtls-common-name.md): `ok`, `expiring` when the server
 * certificate has 30 days or less left, `expired` after its notAfter. A certificate is valid through its notAfter
 * second (RFC 5280, 4.1.2.5), so it is expired only once that instant has passed.
 */

export type CertExpiryStatus = 'ok' | 'expiring' | 'expired';

/** 30 days: how early health starts saying `expiring`. */
export const EXPIRING_WITHIN_MS = 30 * 24 * 60 * 60 * 1000;

export function certExpiryStatus(notAfterMs: number, nowMs: number): CertExpiryStatus {
  if (nowMs > notAfterMs) return 'expired';
  return notAfterMs - nowMs <= EXPIRING_WITHIN_MS ? 'expiring' : 'ok';
}
