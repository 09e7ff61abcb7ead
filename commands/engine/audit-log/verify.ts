import { renderChainVerification } from '../../../src/cli/audit-view.js';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { withProgress } from '../../../src/cli/progress.js';
import { chainLength } from '../../../src/engine/audit/store.js';
import { verifyAuditChain, type ChainVerification } from '../../../src/engine/audit/verify.js';
import { EXIT, TradesealError } from '../../../src/errors.js';

export default class EngineAuditLogVerify extends TradesealCommand {
  static override summary = `Walk the whole audit chain and recompute every hash; exit ${EXIT.refused} naming the first broken link`;
  static override description = `Oldest first, a page at a time: each entry's prev_hash must be the entry_hash of the one before it (64 zeros for the first), and its entry_hash the SHA-256 of the JCS of the entry without it. Exit code 0 when the chain holds, ${EXIT.refused} (audit_chain_broken) naming the first entry that does not. Keep the head it prints somewhere else: a chain cannot show entries cut off its end.`;
  static override examples = ['<%= config.bin %> engine audit-log verify', '<%= config.bin %> engine audit-log verify --json || echo "audit log tampered"'];

  async run(): Promise<ChainVerification> {
    await this.parse(EngineAuditLogVerify);
    const result = await this.withStore(async (store) => {
      const total = await chainLength(store.sql);
      return withProgress('Verifying the audit chain', this.jsonEnabled(), (report) =>
        verifyAuditChain(store.sql, { onProgress: (checked) => report(checked, total) }));
    });
    if (result.broken) {
      const b = result.broken;
      throw new TradesealError('audit_chain_broken', `entry ${b.position} (id ${b.id}, ${b.action} at ${b.at}) is a broken link: ${b.reason}`, {
        hint: `the ${result.entries} entries before it verify; compare the store with a backup from before ${b.at}`,
      });
    }
    this.log(renderChainVerification(result));
    return result;
  }
}
