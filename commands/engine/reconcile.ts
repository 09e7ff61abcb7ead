import path from 'node:path';
import { Args, Flags } from '@oclif/core';
import { cliActor } from '../../src/cli/actor.js';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../src/cli/engine-client.js';
import { readDropCopy } from '../../src/cli/drop-copy-file.js';
import { checkRequest, withFlagNames } from '../../src/cli/engine-input.js';
import { instantFlag } from '../../src/cli/instant.js';
import { withProgress } from '../../src/cli/progress.js';
import { renderReconcileReport } from '../../src/cli/reconcile-view.js';
import { reportFlags, reportStyle } from '../../src/cli/table-flags.js';
import { wrapText } from '../../src/cli/wrap.js';
import { loadPolicy } from '../../src/engine/policy/policy.js';
import { comparisonSettings } from '../../src/engine/reconcile/compare.js';
import { reconcile, type ReconcileReport } from '../../src/engine/reconcile/reconcile.js';
import { reconcileBody, type ReconcileRequest } from '../../src/engine/reconcile/schema.js';
import { readInputFile } from '../../src/core/file-errors.js';

const FLAGS = { agent_ids: '--agent-id' };

export default class EngineReconcile extends TradesealCommand {
  static override storeWork = 'long' as const;
  static override summary =
    'Reconcile the traces with an exchange drop copy (CSV, JSON or a FIX message log): each execution no trace was bound to becomes an ORPHAN trace';
  static override description =
    "An execution whose exchange_tx_id a trace was bound with is matched; one recorded as an orphan before is already known; any other becomes one ORPHAN trace. Bound traces of the drop copy's agents (or --agent-id) within its window (its first to last execution_time, or --from/--to, inclusive) whose exchange_tx_id it does not list are reported as missing. Reconciling the same file again creates nothing new. The file is checked whole before anything is written: every problem is listed with its line. --from, --to and --agent-id replace those of a JSON body.";
  static override examples = [
    '<%= config.bin %> engine reconcile drop-copy-2026-03-02.csv',
    '<%= config.bin %> engine reconcile drop-copy.json --from 2026-03-02 --to 2026-03-02T23:59:59.999Z --json',
  ];
  static override args = {
    file: Args.string({
      description: 'The drop copy: a .csv file with a header line, a .json file, or a FIX log (.fix, or any file whose first line holds a FIX message)',
      required: true,
    }),
  };
  static override flags = {
    from: instantFlag({ summary: 'Start of the window the drop copy covers (default: its earliest execution_time)' }),
    to: instantFlag({ summary: 'End of the window the drop copy covers, inclusive (default: its latest execution_time)' }),
    'agent-id': Flags.string({ summary: 'An agent the drop copy covers (repeatable; default: the agents it names)', multiple: true }),
    ...engineRemoteFlags,
    ...reportFlags,
  };

  async run(): Promise<ReconcileReport> {
    const { args, flags } = await this.parse(EngineReconcile);
    const style = reportStyle(flags);
    // The window and agents, checked as the API checks them in a body.
    const { executions: _none, ...window } = checkRequest<ReconcileRequest>(
      reconcileBody,
      {
        executions: [],
        ...(flags.from ? { from: flags.from.toISOString() } : {}),
        ...(flags.to ? { to: flags.to.toISOString() } : {}),
        ...(flags['agent-id'] ? { agent_ids: flags['agent-id'] } : {}),
      },
      'body',
      FLAGS,
    );
    const text = await readInputFile(args.file, 'FILE', {
      code: 'drop_copy_invalid',
      hint: "give the path of the exchange's drop copy: a .csv file with a header line, or a .json file",
    });
    const request: ReconcileRequest = { ...readDropCopy(args.file, text), ...window };
    const remote = await engineRemoteOf(flags, this.settings);
    if (remote) {
      const answered = await withFlagNames(FLAGS, () => askEngine<ReconcileReport>(remote, 'POST', '/engine/admin/reconcile', { body: request }));
      this.log(wrapText(renderReconcileReport(answered, style), style.width));
      return answered;
    }
    const policy = loadPolicy(this.settings.policyPath);
    const report = await this.withStore((store) =>
      withProgress(`Reconciling ${request.executions.length} executions`, this.jsonEnabled(), (progress) =>
        withFlagNames(FLAGS, () =>
          reconcile(store.sql, request, {
            actor: cliActor(),
            policy,
            now: new Date(),
            source: path.basename(args.file),
            onProgress: progress,
            comparison: comparisonSettings(this.settings),
          }),
        ),
      ),
    );
    this.log(wrapText(renderReconcileReport(report, style), style.width));
    return report;
  }
}
