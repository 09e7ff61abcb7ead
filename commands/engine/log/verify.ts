import { Args, Flags } from '@oclif/core';
import { TradesealCommand } from '../../../src/cli/base-command.js';
import { idHint, prefixRange, resolveIdPrefix } from '../../../src/cli/id-prefix.js';
import { engineRemoteFlags, engineRemoteOf } from '../../../src/cli/engine-client.js';
import { checkRequest } from '../../../src/cli/engine-input.js';
import { localTraceInLog, publicKeyFlag, remoteTraceInLog, type TraceInLog } from '../../../src/cli/log-source.js';
import { renderLogCheck } from '../../../src/cli/log-view.js';
import { checkTraceInLog, type TraceLogCheck } from '../../../src/core/log/trace-check.js';
import { traceParams } from '../../../src/engine/inputs.js';
import { EXIT, TradesealError } from '../../../src/core/errors.js';

export default class EngineLogVerify extends TradesealCommand {
  static override summary = 'Prove that a trace is in the transparency log: its inclusion under a signed tree head; exit 5 when a check fails';
  static override description = `Fetches the trace's inclusion proofs, the signed head of the same tree and the trace's hashes (from the local store, or from a remote engine with --url and --token), then checks them here, trusting only the public key: the head names the key (key_id) and its Ed25519 signature verifies; the logged reasoning_hash is the trace's; its leaf hash and audit path lead to the head's root (RFC 9162 §2.1.3.2); the same for final_proof once the bound trace is logged. Exit 0 when every check passes, ${EXIT.refused} naming the failed checks otherwise, ${EXIT.notFound} for an unknown trace or one not yet logged. Without --public-key on the local store, the log's own key is used (say so in an audit: pass the key you hold).`;
  static override examples = [
    '<%= config.bin %> engine log verify 7c9e6679-7425-40de-944b-e07fc1f90ae7 --public-key "$(cat log-key.hex)"',
    '<%= config.bin %> engine log verify 7c9e6679-7425-40de-944b-e07fc1f90ae7 --url https://engine.example:8080 --token "$AUDITOR_TOKEN" --public-key "$(cat log-key.hex)" --json',
  ];
  static override args = {
    trace_id: Args.string({ description: 'The trace id, or (on the local store) its first characters, at least 4, when they name one trace', required: true }),
  };
  static override flags = {
    'public-key': Flags.string({
      summary: "The log's Ed25519 public key you trust: 64 hex characters, base64 or PEM (`tradeseal engine log key` prints it)",
      helpValue: 'KEY',
    }),
    ...engineRemoteFlags,
  };

  async run(): Promise<TraceLogCheck> {
    const { args, flags } = await this.parse(EngineLogVerify);
    const remote = await engineRemoteOf(flags, this.settings);
    // A prefix is resolved in the local store; a remote engine's API takes whole ids.
    if (remote || !prefixRange(args.trace_id))
      checkRequest(traceParams, { trace_id: args.trace_id }, 'params', { trace_id: 'TRACE_ID' }, idHint('trace', remote !== null));
    const traceId = args.trace_id;
    const given = flags['public-key'] === undefined ? null : publicKeyFlag(flags['public-key']);
    if (remote && !given)
      throw new TradesealError('usage_error', 'verifying a remote engine needs --public-key: a key fetched from the engine would prove nothing about it', {
        hint: 'run `tradeseal engine log key` where the log is kept, and pass its key with --public-key',
      });
    let found: TraceInLog;
    let publicKey = given;
    if (remote) found = await remoteTraceInLog(remote, traceId);
    else {
      const local = await this.withStore(async (store) => localTraceInLog(store.sql, this.settings, await resolveIdPrefix(store.sql, 'trace', traceId)));
      found = local;
      publicKey ??= local.logPublicKey;
    }
    if (!publicKey) throw new TradesealError('usage_error', 'no public key to verify with: pass --public-key');
    const result = checkTraceInLog({ head: found.head, proof: found.proof, trace: found.trace, publicKey });
    this.log(
      renderLogCheck(
        result,
        given ? 'given with --public-key' : "the log's own key, read from this store (pass --public-key to check against the key you hold)",
      ),
    );
    if (!result.valid) this.exitWith(result, EXIT.refused);
    return result;
  }
}
