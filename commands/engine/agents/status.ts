import { Args, Flags } from '@oclif/core';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { assertValid, checkText, checkUuid } from '../../../src/cli/engine-input.js';
import { renderAgent } from '../../../src/cli/engine-views.js';
import { AGENT_STATUSES, setAgentStatus, type Agent } from '../../../src/engine/store/agents.js';
import { notFound, type FieldError } from '../../../src/errors.js';

export default class EngineAgentsStatus extends TradesealCommand {
  static override summary = 'The per-agent kill switch: set an agent Active, Suspended or Deregistered';
  static override description = 'A Suspended or Deregistered agent\'s orders are refused (agent_not_active) by every engine instance from its next request.';
  static override examples = [
    '<%= config.bin %> engine agents status 0b6f3c1e-2a4d-4c5e-9f1a-7d2b3c4e5f60 --status Suspended --reason "runaway order rate"',
    '<%= config.bin %> engine agents status 0b6f3c1e-2a4d-4c5e-9f1a-7d2b3c4e5f60 --status Active --reason "model fixed, reviewed by risk"',
  ];
  static override args = { agent_id: Args.string({ description: 'The agent\'s id', required: true }) };
  static override flags = {
    status: Flags.option({ summary: 'The new status', options: AGENT_STATUSES, required: true })(),
    reason: Flags.string({ summary: 'Why (kept with the agent, shown in listings)', required: true }),
  };

  async run(): Promise<Agent> {
    const { args, flags } = await this.parse(EngineAgentsStatus);
    const errors: FieldError[] = [];
    const agentId = checkUuid(args.agent_id, 'AGENT_ID', errors);
    const reason = checkText(flags.reason, '--reason', 1000, errors);
    assertValid(errors);
    const agent = await this.withStore((store) => setAgentStatus(store.sql, agentId, flags.status, reason));
    if (!agent) throw notFound(`no agent ${agentId}`);
    this.log(renderAgent(agent));
    return agent;
  }
}
