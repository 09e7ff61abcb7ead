/**
 * How the regime signal service sends mail (docs/decisions/0019-registration-code.md): through the SMTP server of
 * `SMTP_URL` with nodemailer when it is set, otherwise into the store's outbox (`tradeseal signals outbox`),
 * which keeps a code only until it is delivered, used, replaced or expired (./outbox.ts).
 *
 * A message the SMTP server does not accept, or a server that cannot be reached within the timeouts, is
 * `service_unavailable` (503): the caller undoes what it stored for the message, so a retry starts clean.
 * The error never repeats `SMTP_URL` (it may carry a password); the server log gets the transport's error.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import { parseConnectionUrl } from 'nodemailer/lib/shared/index.js';
import type { Sql } from 'postgres';
import type { Config } from '../../core/config.js';
import { TradesealError } from '../../core/errors.js';
import { appendOutbox } from './outbox.js';
import type { MailMessage } from './message.js';

export type { MailMessage };

export interface Mailer {
  /** Where messages go: an SMTP server, or the store's outbox. */
  readonly transport: 'smtp' | 'outbox';
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * How long the SMTP conversation may take, at most: a register request waits for it, so an unresponsive
 * server must end in a 503 within seconds rather than hold the request (nodemailer's socket default is an hour).
 */
export const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as const;

export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom'>, sql: Sql): Mailer {
  return config.smtpUrl === null ? outboxMailer(sql) : smtpMailer(config.smtpUrl, config.mailFrom);
}

function smtpMailer(url: string, from: string): Mailer {
  // The URL's own query parameters (e.g. `?tls.rejectUnauthorized=false`) override the timeouts.
  const transport: Transporter = nodemailer.createTransport({ ...SMTP_TIMEOUTS, ...parseConnectionUrl(url) });
  return {
    transport: 'smtp',
    async send(message) {
      try {
        await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
      } catch (err) {
        throw new TradesealError('service_unavailable', 'the mail server did not take the message; nothing was changed: try again in a moment', { cause: err });
      }
    },
    close: () => transport.close(),
  };
}

function outboxMailer(sql: Sql): Mailer {
  return {
    transport: 'outbox',
    async send(message) {
      try {
        await appendOutbox(sql, message);
      } catch (err) {
        throw new TradesealError('service_unavailable', 'the message could not be written to the outbox; nothing was changed: try again in a moment', {
          cause: err,
        });
      }
    },
    close: () => {},
  };
}
