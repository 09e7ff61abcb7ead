import { TradesealCommand } from '../../../src/cli/base-command.js';
import { generateKeyPair, publicKeyToPem, toBase64 } from '../../../src/core/crypto/ed25519.js';
import { HEARTBEAT_KEY_COMMANDS } from '../../../src/cli/heartbeat-keys.js';

interface KeyPair {
  algorithm: 'Ed25519';
  public_key: { hex: string; base64: string; pem: string };
  secret_key: { hex: string; base64: string };
  env: string;
}

export default class EngineKeysGen extends TradesealCommand {
  static override summary = 'Generate a new Ed25519 heartbeat key pair for the regime operator, offline (nothing is stored)';
  static override description = `The operator signs heartbeats with the secret key (the RFC 8032 32-byte seed); the engine verifies them with the public key, set as REGIME_OPERATOR_PUBKEY (hex, base64 or PEM). Nothing is stored: keep the secret key where the heartbeat issuer runs.\n\n${HEARTBEAT_KEY_COMMANDS}`;
  static override examples = ['<%= config.bin %> engine keys gen', '<%= config.bin %> engine keys gen --json > operator-key.json'];

  async run(): Promise<KeyPair> {
    await this.parse(EngineKeysGen);
    const { secretKey, publicKey } = generateKeyPair();
    const hex = Buffer.from(publicKey).toString('hex');
    const pair: KeyPair = {
      algorithm: 'Ed25519',
      public_key: { hex, base64: toBase64(publicKey), pem: publicKeyToPem(publicKey) },
      secret_key: { hex: Buffer.from(secretKey).toString('hex'), base64: toBase64(secretKey) },
      env: `REGIME_OPERATOR_PUBKEY=${hex}`,
    };
    this.log(
      [
        'Ed25519 key pair (RFC 8032) for the regime operator',
        '',
        `public key, hex     ${pair.public_key.hex}`,
        `public key, base64  ${pair.public_key.base64}`,
        'public key, PEM',
        pair.public_key.pem.trimEnd(),
        '',
        `secret key (seed), hex     ${pair.secret_key.hex}`,
        `secret key (seed), base64  ${pair.secret_key.base64}`,
        '',
        'The secret key signs heartbeats: keep it with the heartbeat issuer, never with the engine. The engine needs the public key:',
        `  export ${pair.env}`,
      ].join('\n'),
    );
    return pair;
  }
}
