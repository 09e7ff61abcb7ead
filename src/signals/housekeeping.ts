/**
 * The signal service's housekeeping, once a minute in the server that runs the background jobs
 * (src/http/singletons.ts): verification codes that have expired leave the outbox, and the registration
 * mails that have left the hour leave the hourly count, with their client addresses (personal data kept no
 * longer than the limit needs them). Both statements are idempotent, so overlapping runs do no harm.
 */
import type { Sql } from 'postgres';
import { runEvery } from '../periodic.js';
import { expireOutboxCodes } from './mail/outbox.js';
import { pruneRegistrationMails } from './store/registration-mails.js';

export const HOUSEKEEPING_INTERVAL_MS = 60_000;

export interface HousekeepingResult {
  outbox_codes_expired: number;
  registration_mails_pruned: number;
}

export async function signalsHousekeeping(sql: Sql): Promise<HousekeepingResult> {
  return { outbox_codes_expired: await expireOutboxCodes(sql), registration_mails_pruned: await pruneRegistrationMails(sql) };
}

/** Runs `signalsHousekeeping` now and every minute until stopped; a failed run is logged and retried at the next tick. */
export function startSignalsHousekeeping(sql: Sql, log: (msg: string, err?: unknown) => void): () => Promise<void> {
  return runEvery(HOUSEKEEPING_INTERVAL_MS, () => signalsHousekeeping(sql), (err) => log('signal service housekeeping failed', err));
}
