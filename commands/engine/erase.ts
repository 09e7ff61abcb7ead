import { Args, Flags } from '@oclif/core';
import { cliActor } from '../../src/cli/actor.js';
import type { AgentView } from '../../src/engine/ops/agent-details.js';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../src/cli/engine-client.js';
import { idHint, prefixRange, resolveIdPrefix } from '../../src/cli/id-prefix.js';
import { checkRequest } from '../../src/cli/engine-input.js';
import { agentParams } from '../../src/engine/inputs.js';
import { dataKeysFrom } from '../../src/secrets/kms/from-config.js';
import { findAgent } from '../../src/engine/ops/agents.js';
import { eraseAgent, type ErasureResult } from '../../src/engine/ops/erase.js';

export default class EngineErase extends TradesealCommand {
  static override summary = "Erase an agent's personal data (crypto-shredding): destroy its data key";
  static override description =
    "The same operation as POST /engine/admin/gdpr-erase/{agent_id}: destroys the agent's data key and nulls its name and the regulatory blocks (with their salts) of its traces, with a `gdpr.erase` audit entry. Hashes, proofs and the audit chain still verify; the agent can no longer authorize. It cannot be undone, so it asks for confirmation on a terminal; elsewhere pass --yes. Needs KMS_PROVIDER (exit 5, `precondition_failed`, without). Erasing an erased agent again changes nothing.";
  static override examples = [
    '<%= config.bin %> engine erase 6f1c2a9e-3b4d-4e8f-9a0b-1c2d3e4f5a6b',
    '<%= config.bin %> engine erase 6f1c2a9e-3b4d-4e8f-9a0b-1c2d3e4f5a6b --yes --json',
  ];
  static override args = {
    agent_id: Args.string({
      description: 'The agent whose personal data to erase: its id, or its first characters (at least 4) when they name one agent',
      required: true,
    }),
  };
  static override flags = { yes: Flags.boolean({ summary: 'Confirm without asking (for scripts)' }), ...engineRemoteFlags };

  async run(): Promise<ErasureResult> {
    const { args, flags } = await this.parse(EngineErase);
    const remote = await engineRemoteOf(flags, this.settings);
    if (remote || !prefixRange(args.agent_id))
      checkRequest(agentParams, { agent_id: args.agent_id }, 'params', { agent_id: 'AGENT_ID' }, idHint('agent', remote !== null));
    const keys = dataKeysFrom(this.settings);
    const confirm = (agentId: string): Promise<unknown> =>
      this.confirmDestructive(
        `Erase the personal data of agent ${agentId} (its name and the regulatory blocks of its traces)? This cannot be undone.`,
        flags.yes,
      );
    const erased = remote
      ? await (async () => {
          const agent = await askEngine<AgentView>(remote, 'GET', `/engine/admin/agents/${args.agent_id}`);
          if (!agent.erased) await confirm(agent.agent_id);
          return askEngine<ErasureResult>(remote, 'POST', `/engine/admin/gdpr-erase/${args.agent_id}`);
        })()
      : await this.withStore(async (store) => {
          const agent = await findAgent(store.sql, await resolveIdPrefix(store.sql, 'agent', args.agent_id));
          if (keys && !agent.erased_at) {
            await confirm(agent.agent_id);
          }
          return eraseAgent(store.sql, keys, agent.agent_id, cliActor());
        });
    this.log(
      `erased agent ${erased.agent_id} at ${erased.erased_at.toISOString()}: ${erased.traces_affected} trace${erased.traces_affected === 1 ? '' : 's'} affected`,
    );
    return erased;
  }
}
