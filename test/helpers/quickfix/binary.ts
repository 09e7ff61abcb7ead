/**
 * The QuickFIX exchange peer the test setup built (test/setup/quickfix-peer.ts), for a test's
 * `startExchangePeer({ binary: exchangePeerBinary(), ... })`: kept apart from ./peer.ts, which a benchmark
 * outside vitest uses too.
 */
import { inject } from 'vitest';
import { QUICKFIX_PEER_KEY } from '../../setup/quickfix-peer.js';

/** The peer's path; throws the setup's reason when it could not be built (QuickFIX missing). */
export function exchangePeerBinary(): string {
  const build = inject(QUICKFIX_PEER_KEY);
  if (!build?.binary)
    throw new Error(build?.error ?? 'the QuickFIX exchange peer was not built (test/setup/quickfix-peer.ts is not a global setup of this project)');
  return build.binary;
}
