import { Flags } from '@oclif/core';
import { readKeptCheckpoint, remoteCheckpoint } from '../../../src/cli/audit-checkpoints.js';
import { renderChainVerification } from '../../../src/cli/audit-view.js';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf, type EngineRemote } from '../../../src/cli/engine-client.js';
import { publicKeyFlag } from '../../../src/cli/log-source.js';
import { withProgress } from '../../../src/cli/progress.js';
import { newestCheckpoint } from '../../../src/engine/audit/anchor.js';
import { anchorLocator, judgeAnchors, type AnchoredChainVerification } from '../../../src/engine/audit/anchor-check.js';
import type { SignedAuditCheckpoint } from '../../../src/engine/audit/checkpoint.js';
import type { AuditEntry } from '../../../src/engine/audit/entry.js';
import { chainLength } from '../../../src/engine/audit/store.js';
import { verifyAuditChain, verifyAuditChainNewestFirst, type ChainVerification } from '../../../src/engine/audit/verify.js';
import { loadLogKey } from '../../../src/engine/store/log-key.js';
import { EXIT, TradesealError } from '../../../src/core/errors.js';

/** The largest page `GET /engine/admin/audit-log` serves. */
const REMOTE_PAGE = 1000;

/** Every entry of a remote engine's audit log, newest first, a page at a time through `before_id`. */
async function* remoteEntries(remote: EngineRemote): AsyncGenerator<AuditEntry[]> {
  let before: string | undefined;
  for (;;) {
    // Unrevived: `at` is hashed as the text the engine serves.
    const page = await askEngine<{ has_more: boolean; next_before_id: string | null; entries: AuditEntry[] }>(remote, 'GET', '/engine/admin/audit-log', {
      query: { limit: REMOTE_PAGE, before_id: before },
      revive: false,
    });
    yield page.entries;
    if (!page.has_more || !page.next_before_id) return;
    before = page.next_before_id;
  }
}

interface Walked {
  chain: ChainVerification;
  stored: SignedAuditCheckpoint | null;
  located: ReturnType<typeof anchorLocator>;
  /** The store's own log key, when the store was read and a checkpoint needs a key. */
  ownKey: Uint8Array | null;
}

export default class EngineAuditLogVerify extends TradesealCommand {
  static override storeWork = 'long' as const;
  static override summary = `Walk the whole audit chain, recompute every hash and check it against its signed checkpoints; exit ${EXIT.refused} naming a broken link or a cut`;
  static override description = `Oldest first, a page at a time: each entry's prev_hash must be the entry_hash of the one before it (64 zeros for the first), and its entry_hash the SHA-256 of the JCS of the entry without it. Then the checkpoints: the newest one the engine signed and kept, and the one given with --checkpoint (kept by you from before, out of the engine's reach). Each must carry a valid signature of the transparency log's key, and the chain must still hold the entry it anchors, at its position, with its hash: a chain that ends before it was cut. Exit code 0 when all holds, reporting how many entries are after the last anchor (not yet anchored: those could still be cut unseen); ${EXIT.refused} (audit_chain_broken) naming the first broken link, or the anchored entry that is missing. Without --public-key on the local store the log's own key checks the signatures. Against a remote engine (--url and an owner or auditor token, or a profile) the entries come through GET /engine/admin/audit-log, newest first, and are checked here with the same rules and the same answer; the signatures are checked only with --public-key.`;
  static override examples = [
    '<%= config.bin %> engine audit-log verify',
    '<%= config.bin %> engine audit-log verify --checkpoint audit-checkpoint-2026-03-01.json --public-key "$(cat log-key.hex)"',
    '<%= config.bin %> engine audit-log verify --json || echo "audit log tampered"',
    '<%= config.bin %> engine audit-log verify --profile prod --public-key "$(cat log-key.hex)"',
  ];
  static override flags = {
    checkpoint: Flags.string({
      summary: 'A checkpoint kept from before (`engine audit-log checkpoint --json`): prove the chain still holds every entry up to it',
      helpValue: 'FILE',
    }),
    'public-key': Flags.string({
      summary:
        "The log's Ed25519 public key you trust, to check the checkpoints' signatures: 64 hex characters, base64 or PEM (`tradeseal engine log key` prints it)",
      helpValue: 'KEY',
    }),
    ...engineRemoteFlags,
  };

  async run(): Promise<AnchoredChainVerification> {
    const { flags } = await this.parse(EngineAuditLogVerify);
    const given = flags['public-key'] === undefined ? null : publicKeyFlag(flags['public-key']);
    const kept = flags.checkpoint === undefined ? null : await readKeptCheckpoint(flags.checkpoint);
    const remote = await engineRemoteOf(flags, this.settings);
    // The newest checkpoint is read before the chain: the chain only grows, so the walk reaches at least its entry.
    const walked: Walked = remote
      ? await (async () => {
          const stored = await remoteCheckpoint(remote);
          const located = anchorLocator(stored, kept);
          const chain = await withProgress('Verifying the audit chain', this.jsonEnabled(), (report) =>
            verifyAuditChainNewestFirst(remoteEntries(remote), (checked) => report(checked, 0), located),
          );
          return { chain, stored, located, ownKey: null };
        })()
      : await this.withStore(async (store) => {
          const stored = await newestCheckpoint(store.sql);
          const located = anchorLocator(stored, kept);
          const total = await chainLength(store.sql);
          const chain = await withProgress('Verifying the audit chain', this.jsonEnabled(), (report) =>
            verifyAuditChain(store.sql, { onProgress: (checked) => report(checked, total), locate: located }),
          );
          const ownKey = !given && (stored || kept) ? (await loadLogKey(store.sql, this.settings)).publicKey : null;
          return { chain, stored, located, ownKey };
        });
    const { chain } = walked;
    if (chain.broken) {
      const b = chain.broken;
      throw new TradesealError('audit_chain_broken', `entry ${b.position} (id ${b.id}, ${b.action} at ${b.at}) is a broken link: ${b.reason}`, {
        hint: `the ${chain.entries} entries before it verify; compare the store with a backup from before ${b.at}`,
      });
    }
    const { result, failures } = judgeAnchors(chain, { store: walked.stored, kept }, walked.located, given ?? walked.ownKey);
    if (failures.length > 0) {
      throw new TradesealError('audit_chain_broken', failures.join('; '), {
        hint: `the chain's ${chain.entries} entries link up; restore the missing or altered entries from a backup taken after the checkpoint was signed`,
      });
    }
    this.log(renderChainVerification(result, given ? 'the key given with --public-key' : "the log's own key, read from this store"));
    return result;
  }
}
