/**
 * The hourly limits of registration mail (`signal_registration_mails`), so that `POST /v1/auth/register`
 * cannot be used as a mail relay: at most `perClient` mails for one client address, and `total` in all, in any
 * rolling hour. Each mail sent is a row (the client address and when); a claim counts the rows of the last
 * hour and adds its own in one transaction under a transaction-scoped advisory lock, so concurrent claims on
 * any number of servers take turns and never exceed a limit. Times are the database's (`clock_timestamp()`
 * once the lock is held), so every server agrees on them.
 *
 * A client address is personal data: `pruneRegistrationMails` (the signal service's housekeeping) deletes
 * the rows that have left the hour.
 */
import type { Sql } from 'postgres';
import { ADVISORY_LOCKS } from '../../store/advisory-lock.js';
import type { SqlOrTx } from '../../store/transaction.js';

export const REGISTRATION_LIMIT_WINDOW_MS = 3_600_000;

export interface RegistrationLimits {
  /** Mails per client address per rolling hour. */
  perClient: number;
  /** Mails in all per rolling hour. */
  total: number;
}

export type RegistrationMailClaim =
  | { ok: true; id: number }
  /** Refused: which limit was reached, its value, and when a slot of it frees (the oldest mail that fills it leaves the hour). */
  | { ok: false; scope: 'client' | 'total'; limit: number; next: Date };

const WINDOW_SECS = REGISTRATION_LIMIT_WINDOW_MS / 1000;

/** Takes a slot of both limits for a mail sent for `clientIp`, or says which limit is reached and until when. */
export async function claimRegistrationMail(sql: Sql, clientIp: string, limits: RegistrationLimits): Promise<RegistrationMailClaim> {
  return sql.begin(async (t): Promise<RegistrationMailClaim> => {
    await t`select pg_advisory_xact_lock(${ADVISORY_LOCKS.registrationMail})`;
    // clock_timestamp(), not now(): the transaction may have waited for the lock.
    const [counts] = await t<Array<{ at: Date; client: number; total: number }>>`
      with clock as (select date_trunc('milliseconds', clock_timestamp()) as at)
      select clock.at,
             count(m.id) filter (where m.client_ip = ${clientIp})::int as client,
             count(m.id)::int as total
      from clock left join signal_registration_mails m on m.sent_at > clock.at - make_interval(secs => ${WINDOW_SECS})
      group by clock.at`;
    const { at, client, total } = counts!;
    if (client >= limits.perClient) return refused(t, at, 'client', limits.perClient, client, clientIp);
    if (total >= limits.total) return refused(t, at, 'total', limits.total, total, null);
    const [row] = await t<Array<{ id: number }>>`
      insert into signal_registration_mails (client_ip, sent_at) values (${clientIp}, ${at}) returning id`;
    return { ok: true, id: row!.id };
  });
}

/**
 * When a slot of a full limit frees: `count` mails fill it, so the (count - limit + 1)th oldest must leave the
 * hour (the oldest, unless the limit was lowered since they were sent).
 */
async function refused(
  tx: SqlOrTx,
  at: Date,
  scope: 'client' | 'total',
  limit: number,
  count: number,
  clientIp: string | null,
): Promise<RegistrationMailClaim> {
  const [row] = await tx<Array<{ next: Date }>>`
    select sent_at + make_interval(secs => ${WINDOW_SECS}) as next from signal_registration_mails
    where sent_at > ${at}::timestamptz - make_interval(secs => ${WINDOW_SECS}) and ${clientIp === null ? tx`true` : tx`client_ip = ${clientIp}`}
    order by sent_at, id offset ${count - limit} limit 1`;
  return { ok: false, scope, limit, next: row?.next ?? new Date(at.getTime() + REGISTRATION_LIMIT_WINDOW_MS) };
}

/** Gives back the slot of a mail that was not sent (nothing reached the address). */
export async function releaseRegistrationMail(sql: Sql, id: number): Promise<void> {
  await sql`delete from signal_registration_mails where id = ${id}`;
}

/** Deletes the rows that have left the hour (and with them the client addresses); returns how many. */
export async function pruneRegistrationMails(sql: Sql): Promise<number> {
  const rows = await sql`delete from signal_registration_mails where sent_at <= clock_timestamp() - make_interval(secs => ${WINDOW_SECS}) returning id`;
  return rows.length;
}
