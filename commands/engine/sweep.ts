import { TradesealCommand } from '../../src/cli/base-command.js';
import { sweep, type SweepResult } from '../../src/engine/sweeper.js';

export default class EngineSweep extends TradesealCommand {
  static override summary = "Run the engine's housekeeping once: expire stale PENDING traces, prune rate counters, add partitions";
  static override description =
    'What every server does once a minute: PENDING traces older than TRACE_EXPIRY_MS become EXPIRED, order-rate counters older than a minute go, and the monthly trace partitions of this month and the next two exist. Safe to run while servers sweep too.';
  static override examples = ['<%= config.bin %> engine sweep', 'TRACE_EXPIRY_MS=3600000 <%= config.bin %> engine sweep --json'];

  async run(): Promise<SweepResult & { expiry_ms: number }> {
    await this.parse(EngineSweep);
    const expiryMs = this.settings.traceExpiryMs;
    const result = await this.withStore((store) => sweep(store.sql, Date.now(), expiryMs));
    this.log(
      `expired ${result.expired} pending trace(s) older than ${expiryMs} ms; pruned ${result.rate_rows_pruned} rate counter(s); created ${result.partitions_created} partition(s)`,
    );
    if (result.partition_error) this.warn(`could not create the coming months' trace partitions: ${result.partition_error}`);
    return { ...result, expiry_ms: expiryMs };
  }
}
