import { Flags } from '@oclif/core';
import { engineSource, storeSource, type AttentionSource } from '../../src/cli/attention/source.js';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../src/cli/engine-client.js';
import { tableFlags, tableStyle } from '../../src/cli/table-flags.js';
import { fullScreenPossible } from '../../src/cli/terminal.js';
import { checkRequest } from '../../src/cli/engine-input.js';
import { publicKeyFlag } from '../../src/cli/log-source.js';
import { limitFlag, renderTraceListing, toListing, type TraceListing } from '../../src/cli/trace-listing.js';
import { configuredSession } from '../../src/engine/dropcopy/status.js';
import { listingQuery } from '../../src/engine/inputs.js';
import { dataKeysFrom } from '../../src/secrets/kms/from-config.js';
import { listTraces } from '../../src/engine/store/traces.js';
import { storeDescription } from '../../src/store/db.js';

export default class EngineOrphans extends TradesealCommand {
  static override jsonLinesRows = 'traces';
  static override summary = 'List the traces that need an officer: DIVERGENT, EXPIRED, MISMATCH, ORPHAN, and SHADOW_HALTED ones whose verification failed';
  static override description =
    "On a terminal (and without --json or --csv, and outside CI: with CI set the view could not draw) a full-screen view opens instead, on the local store or a remote engine (--url and a token, or a profile), with a tab for each kind of trace that needs attention (DIVERGENT, EXPIRED, MISMATCH, ORPHAN, SHADOW_HALTED, stale PENDING): arrow keys move, Enter opens a trace, v verifies it (its hashes, and its inclusion in the transparency log under a signed head, checked against --public-key, or on the local store the log's own key), / filters by agent id or asset, n/p page, r refreshes (it also refreshes every 5 s), q quits; a line under the tabs shows the FIX drop-copy session's state, when its peer last spoke and how many messages it refused (with an owner or auditor token on a remote engine). Otherwise the listing of GET /engine/orphans, newest first.\n\nThe name is the HTTP API's (GET /engine/orphans, whose listing this is, on the local store as from a remote engine): it lists every status an officer must look at, ORPHAN (an execution nobody authorized) being one. Related: `tradeseal engine traces list --status S` lists one status (`--status ORPHAN` the orphans alone); `tradeseal engine pending` lists the PENDING traces older than an age (the view's stale PENDING tab).";
  static override examples = [
    '<%= config.bin %> engine orphans',
    '<%= config.bin %> engine orphans --profile prod --public-key "$(cat log-key.hex)"',
    '<%= config.bin %> engine orphans --limit 200 --csv > attention.csv',
  ];
  static override flags = {
    limit: limitFlag,
    'public-key': Flags.string({
      summary:
        'In the view, check log inclusion against this Ed25519 public key of the log (64 hex characters, base64 or PEM; `tradeseal engine log key` prints it)',
      helpValue: 'KEY',
    }),
    ...tableFlags,
    ...engineRemoteFlags,
  };

  async run(): Promise<TraceListing | void> {
    const { flags } = await this.parse(EngineOrphans);
    const { limit } = checkRequest<{ limit: number }>(listingQuery, { limit: flags.limit }, 'querystring');
    const remote = await engineRemoteOf(flags, this.settings);
    const publicKey = flags['public-key'] === undefined ? null : publicKeyFlag(flags['public-key']);
    if (fullScreenPossible() && !this.jsonEnabled() && !flags.csv) {
      // ink and React load when the view opens, not when the CLI starts.
      const { openAttentionView } = await import('../../src/cli/attention/open.js');
      const view: (source: AttentionSource) => Promise<void> = openAttentionView;
      if (remote) await view(engineSource(remote, publicKey));
      else
        await this.withStore((store) =>
          view(
            storeSource(store.sql, dataKeysFrom(this.settings), {
              log: { config: this.settings, publicKey },
              dropCopy: configuredSession(this.settings),
              readsFrom: storeDescription(this.settings),
            }),
          ),
        );
      return;
    }
    const listing = remote
      ? await askEngine<TraceListing>(remote, 'GET', '/engine/orphans', { query: { limit } })
      : toListing(await this.withStore((store) => listTraces(store.sql, { limit, needsAttention: true })));
    this.log(renderTraceListing(listing, 'traces needing attention (DIVERGENT, EXPIRED, MISMATCH, ORPHAN, failed SHADOW_HALTED)', tableStyle(flags)));
    return listing;
  }
}
