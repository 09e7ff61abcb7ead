/**
 * The signal service's housekeeping, once a minute in the server that runs the background jobs
 * (src/http/singletons.ts): verification codes that have expired leave the outbox, mail older than
 * `OUTBOX_RETENTION_HOURS` leaves it altogether (recipient address and text), and the registration mails
 * that have left the hour leave the hourly count, with their client addresses (personal data kept no longer
 * than they are needed). Every statement is idempotent, so overlapping runs do no harm.
 */
import type { Sql } from 'postgres';
import type { Config } from '../core/config.js';
import { runEvery } from '../core/periodic.js';
import { deleteOutboxPastRetention, expireOutboxCodes } from './mail/outbox.js';
import { pruneRegistrationMails } from './store/registration-mails.js';

export const HOUSEKEEPING_INTERVAL_MS = 60_000;

export interface HousekeepingResult {
  outbox_codes_expired: number;
  outbox_messages_deleted: number;
  registration_mails_pruned: number;
}

export type HousekeepingConfig = Pick<Config, 'outboxRetentionHours'>;

export async function signalsHousekeeping(sql: Sql, config: HousekeepingConfig): Promise<HousekeepingResult> {
  return {
    outbox_codes_expired: await expireOutboxCodes(sql),
    outbox_messages_deleted: await deleteOutboxPastRetention(sql, config.outboxRetentionHours),
    registration_mails_pruned: await pruneRegistrationMails(sql),
  };
}

/** Runs `signalsHousekeeping` now and every minute until stopped; a failed run is logged and retried at the next tick. */
export function startSignalsHousekeeping(sql: Sql, config: HousekeepingConfig, log: (msg: string, err?: unknown) => void): () => Promise<void> {
  return runEvery(
    HOUSEKEEPING_INTERVAL_MS,
    () => signalsHousekeeping(sql, config),
    (err) => log('signal service housekeeping failed', err),
  );
}
