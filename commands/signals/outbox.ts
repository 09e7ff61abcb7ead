import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { askService, remoteFlags, remoteOf } from '../../src/cli/signals-client.js';
import { checkRequest } from '../../src/cli/engine-input.js';
import { renderOutbox } from '../../src/cli/signals-keys-view.js';
import { outboxQuery } from '../../src/signals/account-inputs.js';
import { readOutbox, type OutboxMessage } from '../../src/signals/mail/outbox.js';
import { normalizeEmail } from '../../src/signals/verification.js';

export default class SignalsOutbox extends TradesealCommand {
  static override jsonLinesRows = 'messages';
  static override summary = 'Show the mail the regime signal service kept in its local outbox, newest last';
  static override description =
    "When SMTP_URL is not set the service sends no mail: it keeps each message (a registration's verification code, say) in the store's outbox, for an operator to read and pass on. Reading delivers: a verification code is shown once, within its 15 minutes, and then reads [removed] (it is no longer kept), so pass it on at once. A mail is kept for OUTBOX_RETENTION_HOURS (72 by default) from when it was added, then no longer shown and deleted. With SMTP_URL set, nothing new arrives here.";
  static override examples = ['<%= config.bin %> signals outbox', '<%= config.bin %> signals outbox --to quant@example.com --limit 1 --json'];
  static override flags = {
    limit: Flags.string({
      summary: `The newest N messages (${outboxQuery.properties.limit.minimum}-${outboxQuery.properties.limit.maximum}, default ${outboxQuery.properties.limit.default})`,
      helpValue: 'N',
    }),
    to: Flags.string({ summary: 'Only the messages to this address' }),
    ...remoteFlags,
  };

  async run(): Promise<{ count: number; messages: OutboxMessage[] }> {
    const { flags } = await this.parse(SignalsOutbox);
    const q = checkRequest<{ limit: number; to?: string }>(
      outboxQuery,
      {
        ...(flags.limit === undefined ? {} : { limit: flags.limit }),
        ...(flags.to === undefined ? {} : { to: flags.to }),
      },
      'querystring',
      { limit: '--limit', to: '--to' },
    );
    const remote = await remoteOf(flags, this.settings);
    const messages = remote
      ? (await askService<{ messages: OutboxMessage[] }>(remote, 'GET', '/v1/admin/outbox', { query: { limit: q.limit, to: q.to } })).messages
      : await this.withStore((store) =>
          readOutbox(store.sql, {
            limit: q.limit,
            recipient: q.to === undefined ? undefined : normalizeEmail(q.to),
            retentionHours: this.settings.outboxRetentionHours,
          }),
        );
    this.log(renderOutbox(messages));
    return { count: messages.length, messages };
  }
}
