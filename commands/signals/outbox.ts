import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { checkRequest } from '../../src/cli/engine-input.js';
import { renderOutbox } from '../../src/cli/signals-keys-view.js';
import { registerBody } from '../../src/signals/account-inputs.js';
import { listOutbox, type OutboxMessage } from '../../src/signals/mail/outbox.js';
import { normalizeEmail } from '../../src/signals/verification.js';

export default class SignalsOutbox extends TradesealCommand {
  static override summary = 'Show the mail the regime signal service kept in its local outbox, newest last';
  static override description = 'When SMTP_URL is not set the service sends no mail: it keeps each message (a registration\'s verification code, say) in the store\'s outbox, for an operator to read and pass on. With SMTP_URL set, nothing new arrives here.';
  static override examples = [
    '<%= config.bin %> signals outbox',
    '<%= config.bin %> signals outbox --to quant@example.com --limit 1 --json',
  ];
  static override flags = {
    limit: Flags.integer({ summary: 'The newest N messages', min: 1, max: 10_000, default: 20 }),
    to: Flags.string({ summary: 'Only the messages to this address' }),
  };

  async run(): Promise<{ count: number; messages: OutboxMessage[] }> {
    const { flags } = await this.parse(SignalsOutbox);
    const to = flags.to === undefined ? undefined : normalizeEmail(checkRequest<{ email: string }>(registerBody, { email: flags.to }, 'body', { email: '--to' }).email);
    const messages = await this.withStore((store) => listOutbox(store.sql, { limit: flags.limit, recipient: to }));
    this.log(renderOutbox(messages));
    return { count: messages.length, messages };
  }
}
