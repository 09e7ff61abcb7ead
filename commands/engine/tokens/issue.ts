import { Flags } from '@oclif/core';
import { cliActor } from '../../../src/cli/actor.js';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { checkRequest, numberOf, withFlagNames } from '../../../src/cli/engine-input.js';
import { renderIssuedToken } from '../../../src/cli/engine-views.js';
import { issueTokenBody } from '../../../src/engine/inputs.js';
import { issueEngineToken } from '../../../src/engine/ops/tokens.js';
import { TOKEN_ROLES, type IssuedToken, type IssueTokenInput } from '../../../src/engine/store/tokens.js';

const FLAGS = { agent_ids: '--agent-id' };
const { client_name: clientName, role } = issueTokenBody.properties;

export default class EngineTokensIssue extends TradesealCommand {
  static override summary = 'Issue an engine token and print it once';
  static override description =
    'A client token bound to agent ids authorizes and reads for those agents only (each must be registered); an auditor token reads, never writes; an owner token does everything. Owner and auditor tokens are never bound to agents. The secret is printed once; the store keeps only its SHA-256.';
  static override examples = [
    '<%= config.bin %> engine tokens issue --client-name desk-7 --agent-id 0b6f3c1e-2a4d-4c5e-9f1a-7d2b3c4e5f60',
    '<%= config.bin %> engine tokens issue --client-name compliance --role auditor --ttl-days 30',
    '<%= config.bin %> engine tokens issue --client-name ops --role owner --json',
  ];
  static override flags = {
    'client-name': Flags.string({ summary: `Who the token is for (1-${clientName.maxLength} characters)`, required: true }),
    role: Flags.string({ summary: `What the token may do (default: ${role.default})`, helpValue: TOKEN_ROLES.join('|') }),
    'agent-id': Flags.string({ summary: 'Bind a client token to this registered agent (repeatable)', multiple: true }),
    'ttl-days': Flags.string({ summary: 'Days until the token expires, fractions allowed (default: never)', helpValue: 'DAYS' }),
    ...engineRemoteFlags,
  };

  async run(): Promise<IssuedToken> {
    const { flags } = await this.parse(EngineTokensIssue);
    const input = checkRequest<IssueTokenInput>(
      issueTokenBody,
      {
        client_name: flags['client-name'],
        ...(flags.role === undefined ? {} : { role: flags.role }),
        ...(flags['agent-id'] === undefined ? {} : { agent_ids: flags['agent-id'] }),
        ...(flags['ttl-days'] === undefined ? {} : { ttl_days: numberOf(flags['ttl-days']) }),
      },
      'body',
      FLAGS,
    );
    const remote = await engineRemoteOf(flags, this.settings);
    const issued = remote
      ? await withFlagNames(FLAGS, () => askEngine<IssuedToken>(remote, 'POST', '/engine/admin/tokens', { body: input }))
      : await this.withStore((store) =>
          withFlagNames(FLAGS, () => issueEngineToken(store.sql, input, cliActor()), 'registered agents are listed by `tradeseal engine agents list`'),
        );
    this.log(renderIssuedToken(issued));
    return issued;
  }
}
