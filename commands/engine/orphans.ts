import { render } from 'ink';
import { createElement } from 'react';
import { AttentionApp } from '../../src/cli/attention/app.js';
import { storeSource } from '../../src/cli/attention/source.js';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../src/cli/engine-client.js';
import { tableFlags, tableStyle } from '../../src/cli/table-flags.js';
import { fullScreenPossible } from '../../src/cli/terminal.js';
import { checkRequest } from '../../src/cli/engine-input.js';
import { limitFlag, renderTraceListing, toListing, type TraceListing } from '../../src/cli/trace-listing.js';
import { listingQuery } from '../../src/engine/inputs.js';
import { dataKeysFrom } from '../../src/engine/kms/from-config.js';
import { listTraces } from '../../src/engine/store/traces.js';

export default class EngineOrphans extends TradesealCommand {
  static override summary = 'List the traces that need an officer: DIVERGENT, EXPIRED, MISMATCH, ORPHAN, and SHADOW_HALTED ones whose verification failed';
  static override description = 'On a terminal (and without --json or --csv, and outside CI: with CI set the view could not draw) a full-screen view opens instead, with a tab for each kind of trace that needs attention (DIVERGENT, EXPIRED, MISMATCH, ORPHAN, SHADOW_HALTED, stale PENDING): arrow keys move, Enter opens a trace, v verifies it, / filters by agent id or asset, n/p page, r refreshes (it also refreshes every 5 s), q quits. Otherwise, and always against a remote engine (--url or a profile), the listing of GET /engine/orphans, newest first.';
  static override examples = ['<%= config.bin %> engine orphans', '<%= config.bin %> engine orphans --limit 200 --csv > attention.csv'];
  static override flags = { limit: limitFlag, ...tableFlags, ...engineRemoteFlags };

  async run(): Promise<TraceListing | void> {
    const { flags } = await this.parse(EngineOrphans);
    const { limit } = checkRequest<{ limit: number }>(listingQuery, { limit: flags.limit }, 'querystring');
    const remote = await engineRemoteOf(flags, this.settings);
    if (!remote && fullScreenPossible() && !this.jsonEnabled() && !flags.csv) {
      const keys = dataKeysFrom(this.settings);
      await this.withStore(async (store) => {
        const app = render(createElement(AttentionApp, { source: storeSource(store.sql, keys), width: process.stdout.columns ?? 80, height: process.stdout.rows ?? 24 }));
        await app.waitUntilExit();
      });
      return;
    }
    const listing = remote ? await askEngine<TraceListing>(remote, 'GET', '/engine/orphans', { query: { limit } })
      : toListing(await this.withStore((store) => listTraces(store.sql, { limit, needsAttention: true })));
    this.log(renderTraceListing(listing, 'traces needing attention (DIVERGENT, EXPIRED, MISMATCH, ORPHAN, failed SHADOW_HALTED)', tableStyle(flags)));
    return listing;
  }
}
