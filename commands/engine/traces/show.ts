import { Args } from '@oclif/core';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { prefixRange, resolveIdPrefix } from '../../../src/cli/id-prefix.js';
import { checkRequest } from '../../../src/cli/engine-input.js';
import { traceParams } from '../../../src/engine/inputs.js';
import { dataKeysFrom } from '../../../src/engine/kms/from-config.js';
import { tracePersonal } from '../../../src/engine/ops/trace-personal.js';
import { getTrace } from '../../../src/engine/store/traces.js';
import { traceDocument } from '../../../src/engine/trace/read.js';
import { notFound } from '../../../src/errors.js';

export default class EngineTracesShow extends TradesealCommand {
  static override summary = 'Show one trace as its Reasoning_Trace_v1 document';
  static override description = 'The document the HTTP API returns for GET /engine/trace/{trace_id}: the sealed trace, the personal data (null once erased, with `integrity.erased: true`; decrypted with the keys of KMS_PROVIDER) and the integrity block, which holds every field that is not sealed. --json prints the document alone.';
  static override examples = ['<%= config.bin %> engine traces show 7c9e6679-7425-40de-944b-e07fc1f90ae7', '<%= config.bin %> engine traces show 7c9e6679-7425-40de-944b-e07fc1f90ae7 --json | jq .integrity'];
  static override args = { trace_id: Args.string({ description: 'The trace id, or its first characters (at least 4) when they name one trace', required: true }) };

  async run(): Promise<Record<string, unknown>> {
    const { args } = await this.parse(EngineTracesShow);
    if (!prefixRange(args.trace_id)) checkRequest(traceParams, { trace_id: args.trace_id }, 'params', { trace_id: 'TRACE_ID' });
    const keys = dataKeysFrom(this.settings);
    let traceId = args.trace_id;
    const found = await this.withStore(async (store) => {
      traceId = await resolveIdPrefix(store.sql, 'trace', traceId);
      const row = await getTrace(store.sql, traceId);
      return row ? { row, personal: await tracePersonal(store.sql, keys, row) } : null;
    });
    if (!found) throw notFound(`no trace ${traceId}`);
    const { row } = found;
    const document = traceDocument(row, found.personal);
    this.log(`trace ${row.trace_id}  agent ${row.agent_id}  ${row.status} (${row.verification_status})  txn_time ${row.txn_time.toISOString()}`);
    this.log(`reasoning_hash ${row.reasoning_hash}  final_proof ${row.final_proof ?? '-'}`);
    this.log('');
    this.log(JSON.stringify(document, null, 2));
    return document;
  }
}
