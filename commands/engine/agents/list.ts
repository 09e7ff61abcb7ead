import { TradesealCommand } from '../../../src/cli/base-command.js';
import { renderAgents } from '../../../src/cli/engine-views.js';
import { listAgents, type Agent } from '../../../src/engine/store/agents.js';

export default class EngineAgentsList extends TradesealCommand {
  static override summary = 'List registered agents, their status and approved models';
  static override examples = ['<%= config.bin %> engine agents list', '<%= config.bin %> engine agents list --json'];

  async run(): Promise<{ count: number; agents: Agent[] }> {
    await this.parse(EngineAgentsList);
    const agents = await this.withStore((store) => listAgents(store.sql));
    this.log(renderAgents(agents));
    return { count: agents.length, agents };
  }
}
