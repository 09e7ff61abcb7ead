/**
 * Which errors mean "the store is not there right now" rather than "this query is wrong": a refused, reset,
 * closed or timed-out connection (postgres.js and Node codes), and the server's own refusals of the
 * connection class 08, the operator-intervention codes of class 57 (admin shutdown 57P01, crash shutdown
 * 57P02, cannot connect now 57P03), 53300 (too many connections), and a session the server refuses for what
 * it is asked to open: the database gone (3D000 invalid_catalog_name, e.g. dropped while a server runs) or the
 * role's authentication (class 28). One list, so the CLI and the HTTP services agree on it; a command names the
 * last two as a mistake of DATABASE_URL first (connect-errors.ts), a running server answers 503 and logs them
 * at warn with the server's own words.
 * A statement the server cancelled (57014 query_canceled: its `statement_timeout`, or a cancel request)
 * means the store did not answer in time; `isStoreUnavailable` takes both, for the HTTP services' 503.
 * Reference: PostgreSQL 15 documentation, Appendix A "PostgreSQL Error Codes".
 */

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  '57P01',
  '57P02',
  '57P03',
  // too_many_connections: the server refuses new sessions until some end.
  '53300',
  // invalid_catalog_name: the database of the connection does not exist (any more).
  '3D000',
]);

export function isStoreFault(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return CONNECTION_CODES.has(code) || /^(08|28)[0-9A-Z]{3}$/.test(code);
}

/** 57014 query_canceled: the statement ran past `statement_timeout` (or was cancelled). */
export function isStoreTimeout(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '57014';
}

/** The store is not there, or did not answer in time: the request may succeed when retried. */
export function isStoreUnavailable(err: unknown): boolean {
  return isStoreFault(err) || isStoreTimeout(err);
}
