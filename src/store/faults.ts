/**
 * Which errors mean "the store is not there right now" rather than "this query is wrong": a refused, reset,
 * closed or timed-out connection (postgres.js and Node codes), and the server's own refusals of the
 * connection class 08 and the operator-intervention codes of class 57 (admin shutdown 57P01, crash
 * shutdown 57P02, cannot connect now 57P03). One list, so the CLI and the HTTP services agree on it.
 * Reference: PostgreSQL 15 documentation, Appendix A "PostgreSQL Error Codes".
 */

const CONNECTION_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH',
  'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED',
  '57P01', '57P02', '57P03',
]);

export function isStoreFault(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return CONNECTION_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code);
}
