import { Args } from '@oclif/core';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { prefixRange, resolveIdPrefix } from '../../../src/cli/id-prefix.js';
import { checkRequest } from '../../../src/cli/engine-input.js';
import { renderVerification } from '../../../src/cli/engine-views.js';
import { traceParams } from '../../../src/engine/inputs.js';
import { dataKeysFrom } from '../../../src/engine/kms/from-config.js';
import { tracePersonal } from '../../../src/engine/ops/trace-personal.js';
import { getTrace } from '../../../src/engine/store/traces.js';
import { verifyTrace, type TraceVerification } from '../../../src/engine/trace/read.js';
import { EXIT, notFound } from '../../../src/errors.js';

export default class EngineTracesVerify extends TradesealCommand {
  static override summary = 'Recompute a trace\'s reasoning_hash and final_proof; exit 5 when it is not valid';
  static override description = `Recomputes reasoning_hash from the sealed text (and checks it is canonical JSON), the regulatory commitment from the personal data and its salt (after an erasure the sealed commitment stands in for them, provided the erasure destroyed the agent's data key), final_proof from the hash and exchange_tx_id, and compares the listing columns with the sealed facts. Exit code 0 when every check passes, ${EXIT.refused} when any fails (scripts can rely on it), ${EXIT.notFound} when there is no such trace.`;
  static override examples = [
    '<%= config.bin %> engine traces verify 7c9e6679-7425-40de-944b-e07fc1f90ae7',
    '<%= config.bin %> engine traces verify 7c9e6679-7425-40de-944b-e07fc1f90ae7 --json || echo "tampered"',
  ];
  static override args = { trace_id: Args.string({ description: 'The trace id, or its first characters (at least 4) when they name one trace', required: true }) };

  async run(): Promise<TraceVerification> {
    const { args } = await this.parse(EngineTracesVerify);
    if (!prefixRange(args.trace_id)) checkRequest(traceParams, { trace_id: args.trace_id }, 'params', { trace_id: 'TRACE_ID' });
    const keys = dataKeysFrom(this.settings);
    let traceId = args.trace_id;
    const verification = await this.withStore(async (store) => {
      traceId = await resolveIdPrefix(store.sql, 'trace', traceId);
      const row = await getTrace(store.sql, traceId);
      return row ? verifyTrace(row, await tracePersonal(store.sql, keys, row)) : null;
    });
    if (!verification) throw notFound(`no trace ${traceId}`);
    this.log(renderVerification(verification));
    if (!verification.valid) this.exitWith(verification, EXIT.refused);
    return verification;
  }
}
