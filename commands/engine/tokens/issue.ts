import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { assertValid, checkText, checkUuid } from '../../../src/cli/engine-input.js';
import { renderIssuedToken } from '../../../src/cli/engine-views.js';
import { getAgent } from '../../../src/engine/store/agents.js';
import { issueToken, TOKEN_ROLES, type IssuedToken } from '../../../src/engine/store/tokens.js';
import { notFound, type FieldError } from '../../../src/errors.js';

export default class EngineTokensIssue extends TradesealCommand {
  static override summary = 'Issue an engine token and print it once';
  static override description = 'A client token bound to agent ids authorizes and reads for those agents only; an auditor token reads, never writes; an owner token does everything. The secret is printed once; the store keeps only its SHA-256.';
  static override examples = [
    '<%= config.bin %> engine tokens issue --client-name desk-7 --agent-id 0b6f3c1e-2a4d-4c5e-9f1a-7d2b3c4e5f60',
    '<%= config.bin %> engine tokens issue --client-name compliance --role auditor --ttl-days 30',
    '<%= config.bin %> engine tokens issue --client-name ops --role owner --json',
  ];
  static override flags = {
    'client-name': Flags.string({ summary: 'Who the token is for (1-200 characters)', required: true }),
    role: Flags.option({ summary: 'What the token may do', options: TOKEN_ROLES, default: 'client' as const })(),
    'agent-id': Flags.string({ summary: 'Bind a client token to this agent (repeatable)', multiple: true }),
    'ttl-days': Flags.integer({ summary: 'Days until the token expires (default: never)', min: 1, max: 3650 }),
  };

  async run(): Promise<IssuedToken> {
    const { flags } = await this.parse(EngineTokensIssue);
    const errors: FieldError[] = [];
    const clientName = checkText(flags['client-name'], '--client-name', 200, errors);
    const agentIds = [...new Set((flags['agent-id'] ?? []).map((id) => checkUuid(id, '--agent-id', errors)))];
    if (agentIds.length > 0 && flags.role !== 'client') {
      errors.push({ field: '--agent-id', message: `binds client tokens only; a${flags.role === 'owner' ? 'n owner' : 'n auditor'} token is never bound to agents` });
    }
    assertValid(errors);
    const issued = await this.withStore(async (store) => {
      for (const id of agentIds) if (!(await getAgent(store.sql, id))) throw notFound(`no agent ${id} (see \`tradeseal engine agents list\`)`);
      return issueToken(store.sql, {
        client_name: clientName,
        role: flags.role,
        agent_ids: agentIds.length > 0 ? agentIds : null,
        ttl_days: flags['ttl-days'] ?? null,
      });
    });
    this.log(renderIssuedToken(issued));
    return issued;
  }
}
