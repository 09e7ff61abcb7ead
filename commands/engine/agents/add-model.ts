import { Args, Flags } from '@oclif/core';
import { cliActor } from '../../../src/cli/actor.js';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { idHint, prefixRange, resolveIdPrefix } from '../../../src/cli/id-prefix.js';
import { MODEL_FORM, modelApproval, refuse, requestErrors } from '../../../src/cli/engine-input.js';
import { renderAgent } from '../../../src/cli/engine-views.js';
import { reportStyle } from '../../../src/cli/table-flags.js';
import { agentParams } from '../../../src/engine/inputs.js';
import { dataKeysFrom } from '../../../src/secrets/kms/from-config.js';
import { agentView, type AgentView } from '../../../src/engine/ops/agent-details.js';
import { approveAgentModel } from '../../../src/engine/ops/agents.js';

export default class EngineAgentsAddModel extends TradesealCommand {
  static override summary = 'Approve another model version for an agent';
  static override description = 'The versions approved before stay approved; approving one twice changes nothing.';
  static override examples = [`<%= config.bin %> engine agents add-model 0b6f3c1e-2a4d-4c5e-9f1a-7d2b3c4e5f60 --model alpha-8:${'5d'.repeat(32)}`];
  static override args = {
    agent_id: Args.string({ description: "The agent's id, or its first characters (at least 4) when they name one agent", required: true }),
  };
  static override flags = {
    model: Flags.string({ summary: `The model version to approve, ${MODEL_FORM}`, required: true, helpValue: MODEL_FORM }),
    ...engineRemoteFlags,
  };

  async run(): Promise<AgentView> {
    const { args, flags } = await this.parse(EngineAgentsAddModel);
    const params = { agent_id: args.agent_id };
    const remote = await engineRemoteOf(flags, this.settings);
    const errors = !remote && prefixRange(params.agent_id) ? [] : requestErrors(agentParams, params, 'params', { agent_id: 'AGENT_ID' });
    const idHintText = errors.length > 0 ? `${idHint('agent', remote !== null)}; ` : '';
    const model = modelApproval(flags.model, errors);
    refuse(errors, `${idHintText}--model is ${MODEL_FORM}`);
    const keys = dataKeysFrom(this.settings);
    const agent = remote
      ? await askEngine<AgentView>(remote, 'POST', `/engine/admin/agents/${params.agent_id}/models`, { body: model })
      : await this.withStore(async (store) => {
          const agentId = await resolveIdPrefix(store.sql, 'agent', params.agent_id);
          return agentView(store.sql, keys, await approveAgentModel(store.sql, agentId, model!, cliActor()));
        });
    this.log(renderAgent(agent, reportStyle({}, undefined, 'whole in --json')));
    return agent;
  }
}
