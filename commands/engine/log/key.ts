import { TradesealCommand } from '../../../src/cli/base-command.js';
import { renderPublicKey } from '../../../src/cli/public-key-view.js';
import { logKeyLoader } from '../../../src/engine/store/log-key.js';
import { publicKeyForms, type PublicKeyForms } from '../../../src/signals/signing-key.js';

interface LogPublicKey {
  algorithm: 'Ed25519';
  public_key: PublicKeyForms;
  key_id: string;
  source: 'LOG_SIGNING_KEY' | 'store';
}

export default class EngineLogKey extends TradesealCommand {
  static override summary = "Print the public key that verifies the transparency log's tree heads, and its key_id";
  static override description =
    'The log signs its heads with LOG_SIGNING_KEY when set, otherwise with a key kept in the store, generated on first use (this command creates it when there is none yet). Give the public key to whoever verifies the log: `tradeseal engine log verify --public-key`. key_id is the SHA-256 of its DER SubjectPublicKeyInfo, as every head names it. The secret key is never printed.';
  static override examples = ['<%= config.bin %> engine log key', '<%= config.bin %> engine log key --json | jq -r .public_key.hex > log-key.hex'];

  async run(): Promise<LogPublicKey> {
    await this.parse(EngineLogKey);
    const key = await this.withStore((store) => logKeyLoader(store.sql, this.settings)());
    const forms = publicKeyForms(key.publicKey);
    this.log(
      renderPublicKey(`Transparency log signing key (Ed25519, RFC 8032), from ${key.source === 'store' ? 'the store' : 'LOG_SIGNING_KEY'}`, forms, [
        `key_id              ${key.keyId}`,
      ]),
    );
    return { algorithm: 'Ed25519', public_key: forms, key_id: key.keyId, source: key.source };
  }
}
