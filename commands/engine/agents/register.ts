import { Flags } from '@oclif/core';
import { cliActor } from '../../../src/cli/actor.js';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { agentRegistration, MODEL_FORM } from '../../../src/cli/engine-input.js';
import { renderAgent } from '../../../src/cli/engine-views.js';
import { reportStyle } from '../../../src/cli/table-flags.js';
import { registerAgentBody } from '../../../src/engine/inputs.js';
import { dataKeysFrom } from '../../../src/secrets/kms/from-config.js';
import { agentView, sealedNameFor, type AgentView } from '../../../src/engine/ops/agent-details.js';
import { registerEngineAgent } from '../../../src/engine/ops/agents.js';
import { REGIMES } from '../../../src/core/vocabulary.js';

export default class EngineAgentsRegister extends TradesealCommand {
  static override summary = 'Register an agent with its approved model versions';
  static override description = `Authorize refuses the agent's orders unless model_id and model_hash_hex name one of its approved models (model_not_registered; approve more with \`engine agents add-model\`), and, without --allowed-regime, accepts it in every regime. Each --model is ${MODEL_FORM}.`;
  static override examples = [
    `<%= config.bin %> engine agents register --name momentum-1 --max-notional 250000 --model alpha-7:${'3b'.repeat(32)}`,
    `<%= config.bin %> engine agents register --name carry-2 --max-notional 1e6 --model beta-1:${'c4'.repeat(32)} --allowed-regime expansion --allowed-regime recovery --json`,
  ];
  static override flags = {
    name: Flags.string({ summary: `A name for people (1-${registerAgentBody.properties.name.maxLength} characters)`, required: true }),
    'max-notional': Flags.string({ summary: "The agent's notional cap per order, before the regime scale", required: true, helpValue: 'AMOUNT' }),
    model: Flags.string({ summary: `An approved model version, ${MODEL_FORM} (repeatable)`, multiple: true, helpValue: MODEL_FORM }),
    'allowed-regime': Flags.string({
      summary: 'A regime the agent may open positions in, by name or id 0-3 (repeatable; default: all)',
      multiple: true,
      helpValue: REGIMES.join('|'),
    }),
    'max-open-notional': Flags.string({
      summary: "A cap on the agent's open exposure: its authorized, unbound orders plus the new one (default: none)",
      helpValue: 'AMOUNT',
    }),
    ...engineRemoteFlags,
  };

  async run(): Promise<AgentView> {
    const { flags } = await this.parse(EngineAgentsRegister);
    const input = agentRegistration(flags);
    const keys = dataKeysFrom(this.settings);
    const remote = await engineRemoteOf(flags, this.settings);
    const agent = remote
      ? await askEngine<AgentView>(remote, 'POST', '/engine/admin/agents', { body: input })
      : await this.withStore(async (store) => {
          const sealedName = await sealedNameFor(store.sql, keys, input.name);
          return agentView(store.sql, keys, await registerEngineAgent(store.sql, input, cliActor(), sealedName));
        });
    this.log(renderAgent(agent, reportStyle({}, undefined, 'whole in --json')));
    return agent;
  }
}
