/**
 * The local outbox (`signal_outbox`): the mail the signal service would have sent, kept in the store when no
 * SMTP server is configured (SMTP_URL unset), for an operator to read and pass on with `tradeseal signals
 * outbox` or `GET /v1/admin/outbox`.
 *
 * No usable verification code rests here. A mail's text is stored with `CODE_MARK` where its code goes, and
 * the code in a column of its own, only until the first of:
 * - delivery: reading the mail (`readOutbox`) shows the code once and removes it in the same transaction,
 *   so a second reader, a later backup or a leaked owner key finds none;
 * - its use: verify removes the address's codes in the transaction that creates the account;
 * - its replacement: a new mail to the address removes the earlier ones' codes as it is added;
 * - its expiry: a code is never shown after its 15 minutes (the read compares with the database's clock), and
 *   the signal service's housekeeping removes expired ones every minute (`expireOutboxCodes`).
 * A removed code reads `[removed]`; the rest of the mail is kept, but not for longer than
 * `OUTBOX_RETENTION_HOURS`: a mail older than that is never read (the read compares its age with the
 * database's clock), and the housekeeping deletes it, recipient and text, every minute
 * (`deleteOutboxPastRetention`). The bound is measured from when the mail was added, read or not, since
 * the address and text are personal data whether or not anyone passed them on.
 */
import type { Sql } from 'postgres';
import type { MailMessage } from './message.js';
import { CODE_MARK } from './messages.js';
import type { SqlOrTx } from '../../store/transaction.js';

export interface OutboxMessage {
  id: number;
  created_at: Date;
  recipient: string;
  subject: string;
  body: string;
}

/** What a mail shows in place of a code that is no longer kept. */
export const REMOVED_CODE = '[removed]';

/** Adds a mail; the earlier mails to its recipient lose their codes (a new mail replaces or ends them). */
export async function appendOutbox(sql: Sql, message: MailMessage): Promise<void> {
  await sql.begin(async (t) => {
    await scrubOutboxCodes(t, message.to);
    if (message.code) {
      await t`insert into signal_outbox (recipient, subject, body, code, code_expires_at)
        values (${message.to}, ${message.subject}, ${message.code.textWithMark}, ${message.code.value}, ${message.code.expiresAt})`;
    } else {
      await t`insert into signal_outbox (recipient, subject, body) values (${message.to}, ${message.subject}, ${message.text})`;
    }
  });
}

/**
 * Delivers the newest `limit` messages (to one recipient, when given) younger than `retentionHours`, oldest
 * first (the newest is printed last): a live code is in the text this once, and removed from the store in the
 * same transaction. The rows are locked while they are read, so of two concurrent readers one gets the code.
 * A mail past the bound is not shown even if the housekeeping has not deleted it yet.
 */
export async function readOutbox(sql: Sql, options: { limit: number; recipient?: string | undefined; retentionHours: number }): Promise<OutboxMessage[]> {
  return sql.begin(async (t) => {
    // What the housekeeping removes, a read removes first: a store read only by commands (the embedded store
    // with no server running) keeps no mail past its bound and no expired code either.
    await deleteOutboxPastRetention(t, options.retentionHours);
    await expireOutboxCodes(t);
    const rows = await t<Array<OutboxMessage & { code: string | null; has_code: boolean }>>`
      select id, created_at, recipient, subject, body,
             case when code_expires_at > clock_timestamp() then code end as code, code is not null as has_code
      from signal_outbox
      where ${options.recipient === undefined ? t`true` : t`recipient = ${options.recipient}`}
        and created_at > clock_timestamp() - make_interval(hours => ${options.retentionHours})
      order by id desc limit ${options.limit}
      for update`;
    const held = rows.filter((r) => r.has_code).map((r) => r.id);
    if (held.length > 0) await t`update signal_outbox set code = null, delivered_at = clock_timestamp() where id in ${t(held)}`;
    return rows.reverse().map(({ code, has_code: _, ...m }) => ({ ...m, body: m.body.replaceAll(CODE_MARK, code ?? REMOVED_CODE) }));
  });
}

/** Removes the codes of the mails to `recipient` (its code was used, or a new mail replaces it). */
export async function scrubOutboxCodes(sql: SqlOrTx, recipient: string): Promise<void> {
  await sql`update signal_outbox set code = null where recipient = ${recipient} and code is not null`;
}

/** Removes the codes that have expired; returns how many. */
export async function expireOutboxCodes(sql: SqlOrTx): Promise<number> {
  const rows = await sql`update signal_outbox set code = null where code is not null and code_expires_at <= clock_timestamp() returning id`;
  return rows.length;
}

/** Deletes the mails older than `retentionHours`, recipient and text with them; returns how many. */
export async function deleteOutboxPastRetention(sql: SqlOrTx, retentionHours: number): Promise<number> {
  const rows = await sql`delete from signal_outbox where created_at <= clock_timestamp() - make_interval(hours => ${retentionHours}) returning id`;
  return rows.length;
}
