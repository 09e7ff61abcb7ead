import { Args, Flags } from '@oclif/core';
import { cliActor } from '../../../src/cli/actor.js';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { idHint, prefixRange, resolveIdPrefix } from '../../../src/cli/id-prefix.js';
import { refuse, requestErrors } from '../../../src/cli/engine-input.js';
import { renderAgent } from '../../../src/cli/engine-views.js';
import { reportStyle } from '../../../src/cli/table-flags.js';
import { agentParams, agentStatusBody } from '../../../src/engine/inputs.js';
import { dataKeysFrom } from '../../../src/secrets/kms/from-config.js';
import { agentView, type AgentView } from '../../../src/engine/ops/agent-details.js';
import { changeAgentStatus } from '../../../src/engine/ops/agents.js';
import { AGENT_STATUSES, type AgentStatus } from '../../../src/engine/store/agents.js';

export default class EngineAgentsStatus extends TradesealCommand {
  static override summary = 'The per-agent kill switch: set an agent Active, Suspended or Deregistered';
  static override description = "A Suspended or Deregistered agent's orders are refused (agent_not_active) by every engine instance from its next request.";
  static override examples = [
    '<%= config.bin %> engine agents status 0b6f3c1e-2a4d-4c5e-9f1a-7d2b3c4e5f60 --status Suspended --reason "runaway order rate"',
    '<%= config.bin %> engine agents status 0b6f3c1e-2a4d-4c5e-9f1a-7d2b3c4e5f60 --status Active --reason "model fixed, reviewed by risk"',
  ];
  static override args = {
    agent_id: Args.string({ description: "The agent's id, or its first characters (at least 4) when they name one agent", required: true }),
  };
  static override flags = {
    status: Flags.string({ summary: 'The new status', required: true, helpValue: AGENT_STATUSES.join('|') }),
    reason: Flags.string({ summary: 'Why (kept with the agent, shown in listings)' }),
    ...engineRemoteFlags,
  };

  async run(): Promise<AgentView> {
    const { args, flags } = await this.parse(EngineAgentsStatus);
    const params = { agent_id: args.agent_id };
    const body: { status: string; reason?: string } = { status: flags.status, ...(flags.reason === undefined ? {} : { reason: flags.reason }) };
    const remote = await engineRemoteOf(flags, this.settings);
    const idErrors = !remote && prefixRange(params.agent_id) ? [] : requestErrors(agentParams, params, 'params', { agent_id: 'AGENT_ID' });
    refuse([...idErrors, ...requestErrors(agentStatusBody, body, 'body')], idErrors.length > 0 ? idHint('agent', remote !== null) : undefined);
    const keys = dataKeysFrom(this.settings);
    const agent = remote
      ? await askEngine<AgentView>(remote, 'PATCH', `/engine/admin/agents/${params.agent_id}/status`, { body })
      : await this.withStore(async (store) => {
          const agentId = await resolveIdPrefix(store.sql, 'agent', params.agent_id);
          return agentView(store.sql, keys, await changeAgentStatus(store.sql, agentId, body.status as AgentStatus, body.reason ?? null, cliActor()));
        });
    this.log(renderAgent(agent, reportStyle({}, undefined, 'whole in --json')));
    return agent;
  }
}
