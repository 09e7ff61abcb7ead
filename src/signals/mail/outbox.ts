/**
 * The local outbox (`signal_outbox`): the mail the signal service would have sent, kept in the store when no
 * SMTP server is configured (SMTP_URL unset), for an operator to read with `tradeseal signals outbox`.
 */
import type { Sql } from 'postgres';

export interface OutboxMessage {
  id: number;
  created_at: Date;
  recipient: string;
  subject: string;
  body: string;
}

export async function appendOutbox(sql: Sql, message: { to: string; subject: string; text: string }): Promise<void> {
  await sql`insert into signal_outbox (recipient, subject, body) values (${message.to}, ${message.subject}, ${message.text})`;
}

/** The newest `limit` messages (to one recipient, when given), oldest first: the newest is printed last. */
export async function listOutbox(sql: Sql, options: { limit: number; recipient?: string | undefined }): Promise<OutboxMessage[]> {
  const rows = await sql<OutboxMessage[]>`
    select id, created_at, recipient, subject, body from signal_outbox
    where ${options.recipient === undefined ? sql`true` : sql`recipient = ${options.recipient}`}
    order by id desc limit ${options.limit}`;
  return rows.reverse();
}
