import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { tableFlags, tableStyle } from '../../../src/cli/table-flags.js';
import { renderAgents } from '../../../src/cli/engine-views.js';
import { dataKeysFrom } from '../../../src/secrets/kms/from-config.js';
import { agentViews, type AgentView } from '../../../src/engine/ops/agent-details.js';
import { listAgents } from '../../../src/engine/store/agents.js';

export default class EngineAgentsList extends TradesealCommand {
  static override jsonLinesRows = 'agents';
  static override summary = 'List registered agents, their status and approved models';
  static override examples = ['<%= config.bin %> engine agents list', '<%= config.bin %> engine agents list --json'];

  static override flags = { ...tableFlags, ...engineRemoteFlags };

  async run(): Promise<{ count: number; agents: AgentView[] }> {
    const { flags } = await this.parse(EngineAgentsList);
    const keys = dataKeysFrom(this.settings);
    const remote = await engineRemoteOf(flags, this.settings);
    const agents = remote
      ? (await askEngine<{ agents: AgentView[] }>(remote, 'GET', '/engine/admin/agents')).agents
      : await this.withStore(async (store) => agentViews(store.sql, keys, await listAgents(store.sql)));
    this.log(renderAgents(agents, tableStyle(flags)));
    return { count: agents.length, agents };
  }
}
