import { Flags } from '@oclif/core';
import { TradesealCommand } from '../../src/cli/base-command.js';
import { TradesealError } from '../../src/errors.js';
import { SIGNATURE_SCHEMES, type SignatureScheme } from '../../src/engine/heartbeat/message.js';
import { issueHeartbeat } from '../../src/signals/heartbeat.js';
import type { SignedHeartbeat } from '../../src/engine/heartbeat/check.js';

export default class RegimeHeartbeat extends TradesealCommand {
  static override summary = 'Issue one signed heartbeat of the regime in force (Layer 2), as the regime operator';
  static override description = 'Signs {sequence_id, timestamp_ms, regime_id, mta_ref} with REGIME_OPERATOR_SECRET_KEY. The sequence id comes from the store\'s heartbeat sequence, so it is strictly greater than every heartbeat issued before it. Prints the heartbeat as JSON, ready to embed in an authorize body; a heartbeat is good for one authorize within the engine\'s replay window (30 s by default).';
  static override enableJsonFlag = false;
  static override examples = [
    'REGIME_OPERATOR_SECRET_KEY=… <%= config.bin %> regime heartbeat',
    'REGIME_OPERATOR_SECRET_KEY=… <%= config.bin %> regime heartbeat --scheme ed25519-jcs',
  ];
  static override flags = {
    scheme: Flags.string({ summary: 'Signature scheme', options: [...SIGNATURE_SCHEMES], default: 'ed25519' }),
  };

  async run(): Promise<SignedHeartbeat> {
    const { flags } = await this.parse(RegimeHeartbeat);
    const secretKey = this.settings.regimeOperatorSecretKey;
    if (!secretKey) {
      throw new TradesealError('precondition_failed', 'REGIME_OPERATOR_SECRET_KEY is not set', {
        hint: 'make a key pair with `tradeseal engine keys gen`; the engine gets the public key as REGIME_OPERATOR_PUBKEY',
      });
    }
    const hb = await this.withStore((store) => issueHeartbeat(store.sql, { secretKey, now: Date.now(), scheme: flags.scheme as SignatureScheme }));
    this.log(JSON.stringify(hb));
    return hb;
  }
}
