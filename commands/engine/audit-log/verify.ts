import { renderChainVerification } from '../../../src/cli/audit-view.js';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf, type EngineRemote } from '../../../src/cli/engine-client.js';
import { withProgress } from '../../../src/cli/progress.js';
import type { AuditEntry } from '../../../src/engine/audit/entry.js';
import { chainLength } from '../../../src/engine/audit/store.js';
import { verifyAuditChain, verifyAuditChainNewestFirst, type ChainVerification } from '../../../src/engine/audit/verify.js';
import { EXIT, TradesealError } from '../../../src/errors.js';

/** The largest page `GET /engine/admin/audit-log` serves. */
const REMOTE_PAGE = 1000;

/** Every entry of a remote engine's audit log, newest first, a page at a time through `before_id`. */
async function* remoteEntries(remote: EngineRemote): AsyncGenerator<AuditEntry[]> {
  let before: string | undefined;
  for (;;) {
    // Unrevived: `at` is hashed as the text the engine serves.
    const page = await askEngine<{ has_more: boolean; next_before_id: string | null; entries: AuditEntry[] }>(remote, 'GET', '/engine/admin/audit-log',
      { query: { limit: REMOTE_PAGE, before_id: before }, revive: false });
    yield page.entries;
    if (!page.has_more || !page.next_before_id) return;
    before = page.next_before_id;
  }
}

export default class EngineAuditLogVerify extends TradesealCommand {
  static override summary = `Walk the whole audit chain and recompute every hash; exit ${EXIT.refused} naming the first broken link`;
  static override description = `Oldest first, a page at a time: each entry's prev_hash must be the entry_hash of the one before it (64 zeros for the first), and its entry_hash the SHA-256 of the JCS of the entry without it. Exit code 0 when the chain holds, ${EXIT.refused} (audit_chain_broken) naming the first entry that does not. Against a remote engine (--url and an owner or auditor token, or a profile) the entries come through GET /engine/admin/audit-log, newest first, and are checked here with the same rules and the same answer. Keep the head it prints somewhere else: a chain cannot show entries cut off its end.`;
  static override examples = [
    '<%= config.bin %> engine audit-log verify',
    '<%= config.bin %> engine audit-log verify --json || echo "audit log tampered"',
    '<%= config.bin %> engine audit-log verify --profile prod',
  ];
  static override flags = { ...engineRemoteFlags };

  async run(): Promise<ChainVerification> {
    const { flags } = await this.parse(EngineAuditLogVerify);
    const remote = await engineRemoteOf(flags, this.settings);
    const result = remote
      ? await withProgress('Verifying the audit chain', this.jsonEnabled(), (report) => verifyAuditChainNewestFirst(remoteEntries(remote), (checked) => report(checked, 0)))
      : await this.withStore(async (store) => {
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
