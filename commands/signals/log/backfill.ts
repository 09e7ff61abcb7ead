import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { unloggedSignals } from '../../../src/signals/store/published.js';
import { logUnloggedDays, type TrackAppend } from '../../../src/signals/store/track-log.js';
import { loadTrackLogKey } from '../../../src/signals/track/key.js';

export default class SignalsLogBackfill extends TradesealCommand {
  static override storeWork = 'long' as const;
  static override summary = 'Log the published days the track log does not hold (published before it existed), as backfills, without rewriting them';
  static override description =
    "Appends a leaf for every published day that has none, each marked backfill whatever its available_at (the log did not see it published, so it never calls it live), under one new signed head, in one transaction that first takes the log's lock. The days themselves are not changed. A leaf can never be removed, so it asks for confirmation on a terminal; elsewhere pass --yes. Nothing to log is not an error: it says so. On the local store (the service's own database).";
  static override examples = ['<%= config.bin %> signals log backfill', '<%= config.bin %> signals log backfill --yes --json'];
  static override flags = { yes: Flags.boolean({ summary: 'Confirm without asking (for scripts)' }) };

  async run(): Promise<TrackAppend> {
    const { flags } = await this.parse(SignalsLogBackfill);
    const out = await this.withStore(async (store) => {
      const waiting = await unloggedSignals(store.sql);
      if (waiting.length === 0) return { appended: [], unchanged: 0, head: null };
      await this.confirmDestructive(
        `Log ${waiting.length} published days (${waiting[0]!.date} to ${waiting.at(-1)!.date}) in the track log as backfills? Leaves are never removed.`,
        flags.yes,
      );
      const key = await loadTrackLogKey(store.sql, this.settings);
      return store.sql.begin((tx) => logUnloggedDays(tx, key, Date.now()));
    });
    this.log(
      out.head
        ? `logged ${out.appended.length} days as backfills (${out.appended[0]!.date} to ${out.appended.at(-1)!.date}); the track log has ${out.head.tree_size} leaves`
        : 'every published day is in the track log: nothing to log',
    );
    return out;
  }
}
