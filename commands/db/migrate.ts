import { TradesealCommand } from '../../src/cli/base-command.js';
import { migrate } from '../../src/store/migrate.js';

export default class DbMigrate extends TradesealCommand {
  static override summary = 'Apply pending store migrations';
  static override description = 'Each migration runs in its own transaction under an advisory lock, so concurrent starts never race.';
  static override examples = ['<%= config.bin %> db migrate', '<%= config.bin %> db migrate --json'];

  async run(): Promise<{ applied: string[] }> {
    await this.parse(DbMigrate);
    const result = await this.withStore((store) => migrate(store.sql), { migrate: false, creates: true });
    this.log(result.applied.length === 0 ? 'store is up to date' : `applied ${result.applied.length}: ${result.applied.join(', ')}`);
    return result;
  }
}
