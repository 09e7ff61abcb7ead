import { Args } from '@oclif/core';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { idHint, prefixRange, resolveIdPrefix } from '../../../src/cli/id-prefix.js';
import { checkRequest } from '../../../src/cli/engine-input.js';
import { renderVerification } from '../../../src/cli/engine-views.js';
import { terminalOf } from '../../../src/cli/terminal.js';
import { wrapText } from '../../../src/cli/wrap.js';
import { traceParams } from '../../../src/engine/inputs.js';
import { dataKeysFrom } from '../../../src/secrets/kms/from-config.js';
import { tracePersonal } from '../../../src/engine/ops/trace-personal.js';
import { getTrace } from '../../../src/engine/store/traces.js';
import { verifyTrace, type TraceVerification } from '../../../src/engine/trace/read.js';
import { EXIT, notFound } from '../../../src/core/errors.js';

export default class EngineTracesVerify extends TradesealCommand {
  static override summary = "Recompute a trace's reasoning_hash and final_proof; exit 5 when it is not valid";
  static override description = `Recomputes reasoning_hash from the sealed text (and checks it is canonical JSON), the regulatory commitment from the personal data and its salt (after an erasure the sealed commitment stands in for them, provided the erasure destroyed the agent's data key), final_proof from the hash and exchange_tx_id, and compares the listing columns with the sealed facts. Exit code 0 when every check passes, ${EXIT.refused} when any fails (scripts can rely on it), ${EXIT.notFound} when there is no such trace. Against a remote engine (--url or a profile) the checks are the engine's own (GET /engine/trace/{trace_id}/verify); to check without trusting the engine, use "tradeseal engine log verify" with the log's public key.`;
  static override examples = [
    '<%= config.bin %> engine traces verify 7c9e6679-7425-40de-944b-e07fc1f90ae7',
    '<%= config.bin %> engine traces verify 7c9e6679-7425-40de-944b-e07fc1f90ae7 --json || echo "tampered"',
  ];
  static override args = {
    trace_id: Args.string({ description: 'The trace id, or its first characters (at least 4) when they name one trace', required: true }),
  };

  static override flags = { ...engineRemoteFlags };

  async run(): Promise<TraceVerification> {
    const { args, flags } = await this.parse(EngineTracesVerify);
    const remote = await engineRemoteOf(flags, this.settings);
    if (remote || !prefixRange(args.trace_id))
      checkRequest(traceParams, { trace_id: args.trace_id }, 'params', { trace_id: 'TRACE_ID' }, idHint('trace', remote !== null));
    const keys = dataKeysFrom(this.settings);
    const verification = remote
      ? await askEngine<TraceVerification>(remote, 'GET', `/engine/trace/${args.trace_id}/verify`, { revive: false })
      : await this.withStore(async (store) => {
          const traceId = await resolveIdPrefix(store.sql, 'trace', args.trace_id);
          const row = await getTrace(store.sql, traceId);
          if (!row) throw notFound(`no trace ${traceId}`);
          return verifyTrace(row, await tracePersonal(store.sql, keys, row));
        });
    this.log(wrapText(renderVerification(verification), terminalOf().width));
    if (!verification.valid) this.exitWith(verification, EXIT.refused);
    return verification;
  }
}
