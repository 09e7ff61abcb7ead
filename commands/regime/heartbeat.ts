import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { callService, remoteFlags, remoteOf } from '../../src/cli/signals-client.js';
import { HEARTBEAT_KEY_COMMANDS } from '../../src/cli/heartbeat-keys.js';
import { validationError } from '../../src/core/errors.js';
import { SIGNATURE_SCHEMES, type SignatureScheme } from '../../src/core/records/heartbeat.js';
import { issueHeartbeat } from '../../src/signals/heartbeat.js';
import { loadSigningKey } from '../../src/signals/signing-key.js';
import type { SignedHeartbeat } from '../../src/engine/heartbeat/check.js';

export default class RegimeHeartbeat extends TradesealCommand {
  static override summary = 'Issue one signed heartbeat of the regime in force (Layer 2), as the regime operator';
  static override description = `Signs {sequence_id, timestamp_ms, regime_id, mta_ref} with the signal service's heartbeat signing key: REGIME_SIGNING_KEY when set, otherwise the key kept in the store (generated on its first use; \`tradeseal signals heartbeat-key\` prints its public key for the engine's REGIME_OPERATOR_PUBKEY). The sequence id comes from the store's heartbeat sequence, so it is strictly greater than every heartbeat issued before it, here or by \`GET /v1/engine/heartbeat\`. Prints the heartbeat as JSON, ready to embed in an authorize body; a heartbeat is good for one authorize within the engine's replay window (30 s by default).\n\n${HEARTBEAT_KEY_COMMANDS}`;
  static override enableJsonFlag = false;
  static override baseFlags = {};
  static override examples = [
    '<%= config.bin %> regime heartbeat',
    '<%= config.bin %> regime heartbeat --scheme ed25519-jcs',
    'REGIME_SIGNING_KEY=… <%= config.bin %> regime heartbeat',
  ];
  static override flags = {
    scheme: Flags.string({ summary: 'Signature scheme (default: HEARTBEAT_SIGNATURE_SCHEME, `ed25519` unless set)', options: [...SIGNATURE_SCHEMES] }),
    ...remoteFlags,
  };

  async run(): Promise<SignedHeartbeat> {
    const { flags } = await this.parse(RegimeHeartbeat);
    const scheme = (flags.scheme as SignatureScheme | undefined) ?? this.settings.heartbeatSignatureScheme;
    const remote = await remoteOf(flags, this.settings);
    if (remote && flags.scheme !== undefined)
      throw validationError([{ field: '--scheme', message: "is the local issuer's choice; a remote service signs in its HEARTBEAT_SIGNATURE_SCHEME" }]);
    const hb = remote
      ? await callService<SignedHeartbeat>(remote, 'GET', '/v1/engine/heartbeat')
      : await this.withStore(async (store) => {
          const key = await loadSigningKey(store.sql, this.settings);
          return issueHeartbeat(store.sql, { secretKey: key.secretKey, now: Date.now(), scheme });
        });
    this.log(JSON.stringify(hb));
    return hb;
  }
}
