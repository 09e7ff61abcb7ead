import { TradesealCommand } from '../../../src/cli/base-command.js';
import { renderPublicKey } from '../../../src/cli/public-key-view.js';
import { callService, remoteFlags, remoteOf } from '../../../src/cli/signals-client.js';
import { publicKeyForms, type PublicKeyForms } from '../../../src/signals/signing-key.js';
import { loadTrackLogKey } from '../../../src/signals/track/key.js';

interface TrackLogPublicKey extends PublicKeyForms {
  /** The key's fingerprint (RFC 6962 §3.2 LogID), which every head names. */
  key_id: string;
}

export default class SignalsLogKey extends TradesealCommand {
  static override summary = "Print the public key and fingerprint of the signal service's track-log key, for subscribers' `signals verify --public-key`";
  static override description =
    "The key that signs the track log's heads is SIGNAL_LOG_SIGNING_KEY when set, otherwise one kept in the store, generated on first use (this command creates it when there is none yet). Publish its fingerprint (key_id) where subscribers can compare it apart from the service. With --url, what GET /v1/log/key answers. The secret key is never printed.";
  static override examples = ['<%= config.bin %> signals log key', '<%= config.bin %> signals log key --json | jq -r .hex > track-log-key.hex'];
  static override flags = { ...remoteFlags };

  async run(): Promise<TrackLogPublicKey> {
    const { flags } = await this.parse(SignalsLogKey);
    const remote = await remoteOf(flags, this.settings);
    const out: TrackLogPublicKey = remote
      ? await callService<TrackLogPublicKey>(remote, 'GET', '/v1/log/key')
      : await this.withStore(async (store) => {
          const key = await loadTrackLogKey(store.sql, this.settings);
          return { key_id: key.keyId, ...publicKeyForms(key.publicKey) };
        });
    this.log([renderPublicKey('Track log key (Ed25519, RFC 8032)', out), '', `fingerprint (key_id): ${out.key_id}`].join('\n'));
    return out;
  }
}
