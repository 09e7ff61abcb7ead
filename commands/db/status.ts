import { TradesealCommand } from '../../src/cli/base-command.js';
import { renderTable } from '../../src/cli/table.js';
import { reportStyle } from '../../src/cli/table-flags.js';
import { migrationStatus } from '../../src/store/migrate.js';

export default class DbStatus extends TradesealCommand {
  static override summary = 'Show which store migrations are applied and which are pending';
  static override examples = ['<%= config.bin %> db status', '<%= config.bin %> db status --json'];

  async run(): Promise<{ store: string; migrations: Awaited<ReturnType<typeof migrationStatus>> }> {
    await this.parse(DbStatus);
    const { kind, migrations } = await this.withStore(async (store) => ({ kind: store.kind, migrations: await migrationStatus(store.sql) }), {
      migrate: false,
    });
    this.log(`store: ${kind}`);
    this.log(
      renderTable(
        ['version', 'name', 'applied_at'],
        migrations.map((m) => [m.version, m.name, m.applied_at ? m.applied_at.toISOString() : 'pending']),
        reportStyle({}, undefined, '--json'),
      ),
    );
    return { store: kind, migrations };
  }
}
