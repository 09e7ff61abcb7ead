import { TradesealCommand } from '../../src/cli/base-command.js';
import { renderPublicKey } from '../../src/cli/public-key-view.js';
import { HEARTBEAT_KEY_COMMANDS } from '../../src/cli/heartbeat-keys.js';
import { loadSigningKey, publicKeyForms, type PublicKeyForms, type SigningKeySource } from '../../src/signals/signing-key.js';

interface HeartbeatKey {
  algorithm: 'Ed25519';
  public_key: PublicKeyForms;
  /** Where the signing key comes from: the setting, or the store. */
  source: SigningKeySource;
  /** True when this command generated the stored key. */
  created: boolean;
  env: string;
}

export default class SignalsHeartbeatKey extends TradesealCommand {
  static override summary = "Print the public key of the signal service's heartbeat signing key, for the engine's REGIME_OPERATOR_PUBKEY";
  static override description = `The key that signs heartbeats (\`GET /v1/engine/heartbeat\`, \`tradeseal regime heartbeat\`) is REGIME_SIGNING_KEY when set, otherwise one kept in the store, generated on first use; this command creates the stored key when there is none yet. The secret key is never printed.\n\n${HEARTBEAT_KEY_COMMANDS}`;
  static override examples = [
    '<%= config.bin %> signals heartbeat-key',
    'export REGIME_OPERATOR_PUBKEY=$(<%= config.bin %> signals heartbeat-key --json | jq -r .public_key.hex)',
  ];

  async run(): Promise<HeartbeatKey> {
    await this.parse(SignalsHeartbeatKey);
    const key = await this.withStore((store) => loadSigningKey(store.sql, this.settings));
    const forms = publicKeyForms(key.publicKey);
    const out: HeartbeatKey = { algorithm: 'Ed25519', public_key: forms, source: key.source, created: key.created, env: `REGIME_OPERATOR_PUBKEY=${forms.hex}` };
    const from = key.source === 'REGIME_SIGNING_KEY' ? 'REGIME_SIGNING_KEY' : key.created ? 'the store (generated now)' : 'the store';
    this.log(
      [
        renderPublicKey(`Heartbeat signing key (Ed25519, RFC 8032), from ${from}`, forms),
        '',
        'The engine verifies heartbeats with it:',
        `  export ${out.env}`,
      ].join('\n'),
    );
    return out;
  }
}
