import { Args } from '@oclif/core';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { askEngine, engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { idHint, prefixRange, resolveIdPrefix } from '../../../src/cli/id-prefix.js';
import { checkRequest } from '../../../src/cli/engine-input.js';
import { traceParams } from '../../../src/engine/inputs.js';
import { dataKeysFrom } from '../../../src/secrets/kms/from-config.js';
import { tracePersonal } from '../../../src/engine/ops/trace-personal.js';
import { getTrace } from '../../../src/engine/store/traces.js';
import { traceDocument } from '../../../src/engine/trace/read.js';
import { notFound } from '../../../src/core/errors.js';

export default class EngineTracesShow extends TradesealCommand {
  static override summary = 'Show one trace as its Reasoning_Trace_v1 document';
  static override description =
    'The document the HTTP API returns for GET /engine/trace/{trace_id} (from the local store, or from a remote engine with --url or a profile): the sealed trace, the personal data (null once erased, with `integrity.erased: true`; decrypted with the keys of KMS_PROVIDER) and the integrity block, which holds every field that is not sealed. --json prints the document alone.';
  static override examples = [
    '<%= config.bin %> engine traces show 7c9e6679-7425-40de-944b-e07fc1f90ae7',
    '<%= config.bin %> engine traces show 7c9e6679-7425-40de-944b-e07fc1f90ae7 --json | jq .integrity',
  ];
  static override args = {
    trace_id: Args.string({ description: 'The trace id, or its first characters (at least 4) when they name one trace', required: true }),
  };

  static override flags = { ...engineRemoteFlags };

  async run(): Promise<Record<string, unknown>> {
    const { args, flags } = await this.parse(EngineTracesShow);
    const remote = await engineRemoteOf(flags, this.settings);
    if (remote || !prefixRange(args.trace_id))
      checkRequest(traceParams, { trace_id: args.trace_id }, 'params', { trace_id: 'TRACE_ID' }, idHint('trace', remote !== null));
    const keys = dataKeysFrom(this.settings);
    const document = remote
      ? await askEngine<Record<string, unknown>>(remote, 'GET', `/engine/trace/${args.trace_id}`, { revive: false })
      : await this.withStore(async (store) => {
          const traceId = await resolveIdPrefix(store.sql, 'trace', args.trace_id);
          const row = await getTrace(store.sql, traceId);
          if (!row) throw notFound(`no trace ${traceId}`);
          return traceDocument(row, await tracePersonal(store.sql, keys, row));
        });
    const doc = document as {
      trace_id: string;
      agent: { agent_id: string };
      bitemporal: { txn_time: string };
      integrity: { status: string; verification_status: string; reasoning_hash: string; final_proof: string | null };
    };
    this.log(
      `trace ${doc.trace_id}  agent ${doc.agent.agent_id}  ${doc.integrity.status} (${doc.integrity.verification_status})  txn_time ${doc.bitemporal.txn_time}`,
    );
    this.log(`reasoning_hash ${doc.integrity.reasoning_hash}  final_proof ${doc.integrity.final_proof ?? '-'}`);
    this.log('');
    this.log(JSON.stringify(document, null, 2));
    return document;
  }
}
